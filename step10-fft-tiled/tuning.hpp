// Declared for step 10's launcher, defined with the candidates (their
// tuning.cpp, launch.cpp): the search space (the tile, its layout, the
// work-group), the step's side that comes from it (options, --wg auto, the
// point a run uses, the kernels it builds) and the candidate layouts.
#pragma once
#include "common/machinery/tuning.hpp"

namespace conv {

class TiledFftStep : public Step, public Tunable {
 public:
  std::vector<StepOption> options() const override;
  std::pair<int, int> default_work_group(const DeviceFacts&, const Filter&, const RunOptions&) const override;
  bool builds_kernel_file(const RunOptions& options) const override;  // the local layout only
  std::string tune_name() const override;
  std::string tune_filters() const override;
  std::vector<TuneParameter> tune_parameters() const override;
  std::vector<std::string> tune_work_groups(const DeviceFacts&, const TuneProblem&) const override;
  TunePoint tune_defaults(const DeviceFacts& facts, const TuneProblem& problem) const override;  // default_tile
  std::string tune_ruled_out(const DeviceFacts&, const TuneProblem&, const TunePoint&) const override;
  std::string tune_kernels() const override;  // the lesson's kernel and the candidate layouts
  // The point a run of `items` work-items uses (the options given, the
  // tuned winner, the documented defaults); UsageError when the values given
  // cannot run. A --kernel file stands for convolve: the local layout.
  TunePoint resolve(const DeviceFacts& facts, const RunOptions& options, const Filter& filter, int items,
                    std::string* origin = nullptr) const;
};

// A candidate layout's kernel ("fused", "split" or "registers") for tile
// N, its buffers made in `launch` and every argument set: the input and
// output as convolve takes them, one work-group of `items` per pair of
// tiles, pairs_x pairs a row.
cl::Kernel candidate_kernel(DeviceContext& device, Launch& launch, const std::string& layout, const Problem& problem,
                            const cl::Buffer& input, const cl::Buffer& output, int N, int items, int pairs_x);

}  // namespace conv
