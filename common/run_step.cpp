#include "common/run_step.hpp"

#include "common/device_checks.hpp"
#include "common/errors.hpp"
#include "common/guard.hpp"
#include "common/supervisor.hpp"

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
}

}  // namespace conv
