// The run-and-time loop, one for every launch: the steps', the filter
// bank's, the volume's and the histogram's.
#pragma once
#include <functional>
#include <string>

#include "common/image.hpp"
#include "common/launch.hpp"
#include "common/step.hpp"
#include "common/timing.hpp"

namespace conv {

// Poisons the launch's outputs, runs it once and checks its guard margins,
// calls `check_first` (which reads the result and checks it), then runs it
// `warmup` more times untimed and `reps` times timed, and checks the margins
// again. Returns the timed runs' statistics (empty for reps = 0).
Stats run_launch(Launch& launch, int reps, int warmup, const std::function<void()>& check_first);

struct RunResult {
  Image output;   // from the first launch, into a poisoned buffer; checked by check_result()
  Stats stats;    // of the timed launches
  std::string work_group;
  std::string note;  // Launch::note
};

// A step's launch through run_launch: the first run's output is the
// result. Throws KernelFault when it holds untouched or non-finite pixels,
// or a launch wrote outside its buffers; Error when it is not the size of
// the output.
RunResult run_step(Step& step, DeviceContext& device, const Problem& problem,
                   const RunOptions& options, int reps, int warmup = 1);

// What the conformance suite and the kernel checks run a step as: every
// variant with the other options at their defaults, then every other choice
// (or test value) of every other option with the first variant. With
// `kernel_file` (a kernel file graded in place of the step's), only those
// that build it (Step::builds_kernel_file).
std::vector<RunOptions> suite_configurations(const Step& step, bool kernel_file = false);

}  // namespace conv
