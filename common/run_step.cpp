#include "common/run_step.hpp"

#include "common/device_checks.hpp"
#include "common/guard.hpp"

namespace conv {

RunResult run_step(Step& step, DeviceContext& device, const Problem& problem,
                   const RunOptions& options, int reps, int warmup) {
  // Before prepare(): a step sizes its buffers by the work-group, so an
  // absurd one would otherwise surface as an absurd buffer.
  check_work_group_shape(device, options.wg_x, options.wg_y);
  auto launch = step.prepare(device, problem, options);
  auto& queue = device.queue();
  launch->poison_output(queue);
  launch->enqueue(queue).wait();
  launch->check_guards(queue);
  RunResult result;
  result.output = launch->read_output(queue);
  check_result(result.output);
  result.work_group = launch->work_group();
  result.note = launch->note();
  if (reps > 0) {
    result.stats = time_launches([&] { return launch->enqueue(queue); }, warmup, reps,
                                 [&](const cl::Event& last) { return launch->elapsed_ms(last); });
    launch->check_guards(queue);
  }
  return result;
}

}  // namespace conv
