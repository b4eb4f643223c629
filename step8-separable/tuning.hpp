// Declared for step 8's launcher, defined with the candidates: the search
// space the tuner searches, the step's side that comes from it (its
// options, --wg auto, the point a run uses), and a pass without the tile.
#pragma once
#include <functional>

#include "common/machinery/tuning.hpp"
#include "step8-separable/decompose.hpp"

namespace conv {

class SeparableStep : public Step, public Tunable {
 public:
  std::vector<StepOption> options() const override;
  std::pair<int, int> default_work_group(const DeviceFacts&, const Filter&, const RunOptions&) const override;
  bool builds_kernel_file(const RunOptions& options) const override;  // the passes with a tile only
  // The point a run uses (the options given, the tuned winner, the defaults):
  // the lesson's passes run it, or a candidate kernel.
  Launch prepare(DeviceContext& device, const Problem& problem, const RunOptions& options) final;
  virtual Launch prepare_passes(DeviceContext& device, const Problem& problem, const RunOptions& options,
                                const TunePoint& point, const SeparableFilter& terms) = 0;
  std::string tune_name() const override;
  std::string tune_filters() const override;
  std::vector<TuneParameter> tune_parameters() const override;
  std::vector<std::string> tune_work_groups(const DeviceFacts&, const TuneProblem&) const override;
  TunePoint tune_defaults(const DeviceFacts& facts, const TuneProblem& problem) const override;  // one rule
  std::string tune_ruled_out(const DeviceFacts&, const TuneProblem&, const TunePoint&) const override;
  TuneProblem tune_problem(const Filter& filter) const override;  // "F=15 box", "F=7 rank=7"
  std::string tune_command(const TuneProblem& problem) const override;
  std::string tune_kernels() const override;  // the lesson's passes and the candidates
};

std::pair<int, int> size_of(const TunePoint& point, const std::string& name);  // "block", "wg" as numbers
using Pass = std::function<cl::Event(const cl::Buffer& filter, int accumulate)>;
Pass direct_pass(const Step& step, DeviceContext& device, const RunOptions& options, const std::string& build_options,
                 const cl::NDRange& global, const cl::NDRange& local, const cl::Buffer& from, int from_pitch,
                 const cl::Buffer& to, int to_pitch);

}  // namespace conv
