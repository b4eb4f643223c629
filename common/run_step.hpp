// The run-and-time loop: one step's launch, checked once into a poisoned
// output, then timed.
#pragma once
#include <string>

#include "common/image.hpp"
#include "common/launch.hpp"
#include "common/step.hpp"
#include "common/timing.hpp"

namespace conv {

struct RunResult {
  Image output;   // from the first launch, into a poisoned buffer; checked by check_result()
  Stats stats;    // of the timed launches
  std::string work_group;
  std::string note;  // Launch::note()
};

// Prepares, runs once into a poisoned output (that output is the result),
// then `warmup` more untimed launches and `reps` timed ones. Throws
// KernelFault when the result holds untouched or non-finite pixels, or a
// launch wrote outside its buffers (checked after the first launch and
// after the timed ones).
RunResult run_step(Step& step, DeviceContext& device, const Problem& problem,
                   const RunOptions& options, int reps, int warmup = 1);

}  // namespace conv
