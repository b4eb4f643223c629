#include "common/run_step.hpp"

#include "common/device_checks.hpp"
#include "common/guard.hpp"

namespace conv {

Stats run_launch(Launch& launch, int reps, int warmup, const std::function<void()>& check_first) {
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
  Launch launch = step.prepare(device, problem, options);
  RunResult result;
  result.stats = run_launch(launch, reps, warmup, [&] {
    result.output = launch.read();
    check_result(result.output);
  });
  result.work_group = launch.work_group;
  result.note = launch.note;
  return result;
}

}  // namespace conv
