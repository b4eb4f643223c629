#include "histogram/run.hpp"

#include <chrono>
#include <optional>

#include "common/machinery/device_choice.hpp"
#include "common/machinery/guard.hpp"
#include "common/machinery/program_cache.hpp"
#include "common/machinery/reference.hpp"
#include "common/machinery/report.hpp"
#include "common/machinery/settings.hpp"
#include "common/machinery/supervisor.hpp"
#include "histogram/device_histogram.hpp"

namespace conv::histogram {
namespace {

using Clock = std::chrono::steady_clock;

double since_ms(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

// The last `n` samples: the timed runs', after the first run and the warm-ups.
std::vector<double> last(const std::vector<double>& samples, std::size_t n) {
  return {samples.end() - static_cast<std::ptrdiff_t>(n), samples.end()};
}

}  // namespace

namespace {

VariantRun run_unnamed(DeviceContext& device, const RgbImage& image, const Variant& variant,
                       const Settings& settings, int reps, int warmup) {
  const PhaseScope running(KernelPhase::running);  // its build marks itself
  VariantRun run;
  run.plan = make_plan(variant, image.pixels(), settings, device.facts());
  cl::CommandQueue& queue = device.queue();
  Launch launch(device);
  DeviceHistogram dh(launch, device.context(), run.plan);
  dh.upload(queue, image);
  dh.clear_sums(queue);
  dh.set_program(device.program(run.plan.source, run.plan.options, run.plan.label),
                 device.device());

  std::optional<Counts> first;  // set by check_first, after the first run
  auto same = [&](const Counts& counts, int n, const char* how) {
    if (first && counts != *first)
      throw KernelFault("variant " + variant.name + ": " + how + " " + std::to_string(n) +
                  " counted differently from the first run");
  };

  // One run: the counts poisoned, the kernels, then the read-back and the
  // merge, timed by the host's clock (the first run's and the warm-ups' too;
  // only the timed runs' are kept).
  Counts latest{};
  cl::Event first_kernel;
  std::vector<double> read, merge;
  int runs = 0;
  launch.run = [&] {
    dh.poison_result(queue);
    const std::vector<cl::Event> events = dh.enqueue(queue);
    cl::Event::waitForEvents(events);
    first_kernel = events.front();
    auto t0 = Clock::now();
    dh.read_back(queue);
    read.push_back(since_ms(t0));
    t0 = Clock::now();
    latest = dh.finish();
    merge.push_back(dh.merges_on_host() ? since_ms(t0) : 0.0);
    same(latest, ++runs, "run");
    return events.back();
  };
  // The device's time: the first fill or kernel's start to the last kernel's end.
  std::vector<double> kernels;  // the timed runs'
  launch.elapsed = [&](const cl::Event& last_kernel) {
    kernels.push_back(span_ms(first_kernel, last_kernel));
    return kernels.back();
  };
  run.device = run_launch(launch, reps, warmup, [&] { first = run.counts = latest; });

  const std::size_t timed = kernels.size();
  const std::vector<double> read_ms = last(read, timed), merge_ms = last(merge, timed);
  std::vector<double> total;
  for (std::size_t i = 0; i < timed; ++i) total.push_back(kernels[i] + read_ms[i] + merge_ms[i]);
  run.read_back = summarize(read_ms);
  run.merge = summarize(merge_ms);
  run.total = summarize(total);

  // The whole call, as a program that wants the counts pays for it: host
  // work and device work together, from the first enqueue to the counts.
  // That is a time of the host's clock, which run_launch (profiling events)
  // does not measure, so it is a loop of its own.
  std::vector<double> call;
  for (int i = 0; i < warmup + reps; ++i) {
    dh.poison_result(queue);
    const auto t0 = Clock::now();
    const Counts counts = dh.call(queue);
    const double ms = since_ms(t0);
    same(counts, i + 2, "call");
    if (i >= warmup) call.push_back(ms);
  }
  launch.check_guards();
  run.call = summarize(call);
  return run;
}

}  // namespace

VariantRun run_variant(DeviceContext& device, const RgbImage& image, const Variant& variant,
                       const Settings& settings, int reps, int warmup) {
  try {
    return run_unnamed(device, image, variant, settings, reps, warmup);
  } catch (const cl::Error& e) {  // a --kernel file's kernel that takes other arguments: its fault, named
    if (settings.kernel_source.empty() || !kernel_argument_error(e.err())) throw;
    throw KernelFault(kernel_argument_text(settings.kernel_label, "the " + variant.name + " variant", e.what(),
                                           e.err(), "the variant's own kernel"));
  }
}

}  // namespace conv::histogram
