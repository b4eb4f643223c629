// Step 8's search space (docs/step8-separable.md, "Candidates, tuned as in
// step 7"), declared once: the kernel that runs (the lesson's passes with a
// tile, or one of the candidates in candidates/), the passes' kernels and
// blocks, the unrolled loop and the work-group; the documented defaults;
// what rules a point out. The harness's tuner (common/machinery/tuner.hpp)
// searches it; the step's options come from it.
#pragma once
#include <string>
#include <utility>
#include <vector>

#include "common/core/step.hpp"
#include "common/machinery/tuning.hpp"
#include "step8-separable/decompose.hpp"

namespace conv {

class SeparableSpace : public Tunable {
 public:
  std::string tune_name() const override;
  std::vector<TuneParameter> tune_parameters() const override;
  std::vector<std::string> tune_work_groups(const DeviceFacts& facts, const TuneProblem& problem) const override;
  // One rule on every device: the lesson's passes with a tile, block 4x4
  // (its height halved while a pass's tile does not fit the device's local
  // memory; a pass whose tile does not fit at 4x1 runs without it), the
  // loop over tile rows unrolled, work-group 32x8.
  TunePoint tune_defaults(const DeviceFacts& facts, const TuneProblem& problem) const override;
  std::string tune_ruled_out(const DeviceFacts& facts, const TuneProblem& problem,
                             const TunePoint& point) const override;
  // "F=15 box" for a box (rank 1, equal weights), else "F=7 rank=7".
  TuneProblem tune_problem(const Filter& filter) const override;
  std::string tune_command(const TuneProblem& problem) const override;
};

// The problem of a filter's terms, as tune_problem; its rank back.
TuneProblem separable_problem(const SeparableFilter& terms);
int problem_rank(const TuneProblem& problem);

// Step 8 as a Step, as far as the space decides it: its options
// (tuned_options), the work-group --wg auto gives it, which options build a
// --kernel file (the lesson's passes alone: a file stands for convolve.cl),
// and the point a run uses (resolve_point: the options given, then the
// tuned winner, then the defaults; UsageError when the values given cannot
// go together) with the line the run's note gives it.
class SeparableStep : public Step, public SeparableSpace {
 public:
  std::vector<StepOption> options() const override;
  std::pair<int, int> default_work_group(const DeviceFacts& facts, const Filter& filter,
                                         const RunOptions& options) const override;
  bool builds_kernel_file(const RunOptions& options) const override;
  // In prepare() the work-group is the run's own; in default_work_group()
  // it is to be found.
  Resolved resolve(const DeviceFacts& facts, const Filter& filter, const RunOptions& options,
                   bool with_work_group) const;
  // "rank 1 of 31 (...); method=passes ... (documented defaults for a CPU ...)".
  std::string note(const SeparableFilter& terms, const Resolved& resolved) const;
};

// A point's "WxH" (a block, "block" or "column-block", or "wg") as numbers.
std::pair<int, int> size_of(const TunePoint& point, const std::string& name);

}  // namespace conv
