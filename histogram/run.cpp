#include "histogram/run.hpp"

#include <chrono>

#include "common/errors.hpp"
#include "histogram/device_histogram.hpp"

namespace conv::histogram {
namespace {

double since_ms(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

cl::Program Programs::get(const Plan& plan) {
  const std::string key = plan.options + '\n' + plan.source;
  auto it = built_.find(key);
  if (it != built_.end()) return it->second;
  cl::Program program =
      cache_.build(cl_.context, cl_.device, plan.source, plan.options, plan.label).program;
  built_.emplace(key, program);
  return program;
}

double span_ms(const std::vector<cl::Event>& events) {
  cl_ulong start = events.front().getProfilingInfo<CL_PROFILING_COMMAND_START>();
  cl_ulong end = 0;
  for (const auto& e : events) {
    start = std::min(start, e.getProfilingInfo<CL_PROFILING_COMMAND_START>());
    end = std::max(end, e.getProfilingInfo<CL_PROFILING_COMMAND_END>());
  }
  return static_cast<double>(end - start) * 1e-6;
}

VariantRun run_variant(Cl& cl, Programs& programs, const DeviceFacts& facts, const RgbImage& image,
                       const Variant& variant, const Settings& settings, int reps, int warmup) {
  VariantRun run;
  run.plan = make_plan(variant, image.pixels(), settings, facts);
  DeviceHistogram dh(cl.context, run.plan);
  dh.upload(cl.queue, image);
  dh.set_program(programs.get(run.plan), cl.device);

  dh.poison(cl.queue);
  cl::Event::waitForEvents(dh.enqueue(cl.queue));
  dh.read_back(cl.queue);
  run.counts = dh.finish();

  auto same = [&](const Counts& counts, int i, const char* how) {
    if (counts != run.counts)
      throw Error("variant " + variant.name + ": " + how + " " + std::to_string(i + 2) +
                  " counted differently from the first run");
  };
  std::vector<double> device, read, merge, total, call;
  for (int i = 0; i < warmup + reps; ++i) {
    dh.poison_result(cl.queue);
    const auto events = dh.enqueue(cl.queue);
    cl::Event::waitForEvents(events);
    auto t0 = std::chrono::steady_clock::now();
    dh.read_back(cl.queue);
    const double read_ms = since_ms(t0);
    t0 = std::chrono::steady_clock::now();
    const Counts counts = dh.finish();
    const double merge_ms = dh.merges_on_host() ? since_ms(t0) : 0.0;
    same(counts, i, "run");
    if (i < warmup) continue;
    device.push_back(span_ms(events));
    read.push_back(read_ms);
    merge.push_back(merge_ms);
    total.push_back(device.back() + read_ms + merge_ms);
  }
  run.device = summarize(device);
  run.read_back = summarize(read);
  run.merge = summarize(merge);
  run.total = summarize(total);
  for (int i = 0; i < warmup + reps; ++i) {
    dh.poison_result(cl.queue);
    const auto t0 = std::chrono::steady_clock::now();
    const Counts counts = dh.call(cl.queue);
    const double ms = since_ms(t0);
    same(counts, i, "call");
    if (i >= warmup) call.push_back(ms);
  }
  run.call = summarize(call);
  return run;
}

}  // namespace conv::histogram
