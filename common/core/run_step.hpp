// The run-and-time loop, one for every launch: the steps', the filter
// bank's, the volume's and the histogram's.
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "common/core/launch.hpp"
#include "common/core/step.hpp"
#include "common/core/timing.hpp"

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

// The value an output holds before a launch: a quiet NaN whose payload no
// arithmetic produces, so "never written" and "computed NaN" differ.
constexpr std::uint32_t kPoisonBits = 0x7FC0DEADu;
float poison_value();

// Throws KernelFault naming `what`, the count and the first place of pixels
// still holding the poison, or else of NaN or infinite pixels.
void check_result(const Image& output, const std::string& what = "the output");

// What the program is doing with its kernels right now, for the line that
// reports a crash or a timeout. PhaseScope sets it for its lifetime:
// DeviceContext::program() marks building, run_launch() running. Kept where
// a supervising parent can read it (machinery/supervisor.cpp).
enum class KernelPhase : int { other = 0, building = 1, running = 2 };
KernelPhase current_phase();
class PhaseScope {
 public:
  explicit PhaseScope(KernelPhase phase);
  ~PhaseScope();
  PhaseScope(const PhaseScope&) = delete;
  PhaseScope& operator=(const PhaseScope&) = delete;

 private:
  KernelPhase previous_;
};

}  // namespace conv
