#include "common/core/run_step.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "common/core/device_checks.hpp"
#include "common/core/errors.hpp"

namespace conv {

Stats run_launch(Launch& launch, int reps, int warmup, const std::function<void()>& check_first) {
  const PhaseScope running(KernelPhase::running);
  launch.poison_outputs();
  launch.run().wait();
  launch.check_guards();
  check_first();
  if (reps <= 0) return {};
  const Stats stats = time_launches(launch.run, warmup, reps, launch.elapsed);
  launch.check_guards();
  return stats;
}

RunResult run_step(Step& step, DeviceContext& device, const Problem& problem,
                   const RunOptions& options, int reps, int warmup) {
  // Before prepare(): a step sizes its buffers by the work-group, so an
  // absurd one would otherwise surface as an absurd buffer.
  check_work_group_shape(device, options.wg_x, options.wg_y);
  try {
    Launch launch = step.prepare(device, problem, options);
    RunResult result;
    result.stats = run_launch(launch, reps, warmup, [&] {
      result.output = launch.read();
      if (result.output.width != problem.out_width() || result.output.height != problem.out_height())
        throw Error(step.name() + ": the launch read back " + std::to_string(result.output.width) + "x" +
                    std::to_string(result.output.height) + ", not " + std::to_string(problem.out_width()) +
                    "x" + std::to_string(problem.out_height()));
      check_result(result.output);
    });
    result.work_group = launch.work_group;
    result.note = launch.note;
    return result;
  } catch (const cl::Error& e) {  // a --kernel file's kernel that takes other arguments: its fault, named
    if (options.kernel_source.empty() || !kernel_argument_error(e.err())) throw;
    throw KernelFault(
        kernel_argument_text(step.label(options), step.name(), e.what(), e.err(), "the step's own kernel"));
  }
}

namespace {

std::string at(std::size_t index, std::size_t width) {
  return "(" + std::to_string(index % width) + ", " + std::to_string(index / width) + ")";
}

}  // namespace

float poison_value() {
  float v;
  std::memcpy(&v, &kPoisonBits, sizeof v);
  return v;
}

void check_result(const Image& output, const std::string& what) {
  std::size_t untouched = 0, non_finite = 0, first_untouched = 0, first_non_finite = 0;
  for (std::size_t i = 0; i < output.pixels.size(); ++i) {
    const float v = output.pixels[i];
    if (std::isfinite(v)) continue;
    std::uint32_t bits;
    std::memcpy(&bits, &v, sizeof bits);
    if (bits == kPoisonBits) {
      if (untouched++ == 0) first_untouched = i;
    } else if (non_finite++ == 0) {
      first_non_finite = i;
    }
  }
  const std::size_t w = static_cast<std::size_t>(std::max(output.width, 1));
  if (untouched > 0)
    throw KernelFault(what + ": " + std::to_string(untouched) + " of " +
                      std::to_string(output.pixels.size()) +
                      " pixels were never written by the kernel, the first at " +
                      at(first_untouched, w));
  if (non_finite > 0)
    throw KernelFault(what + ": " + std::to_string(non_finite) + " of " +
                      std::to_string(output.pixels.size()) +
                      " pixels are NaN or infinite, the first at " + at(first_non_finite, w) +
                      " (a read outside the input, or sums beyond float's range)");
}

}  // namespace conv
