#include "histogram/breakdown.hpp"

#include <chrono>
#include <cmath>
#include <optional>

#include "common/core/program.hpp"
#include "common/machinery/files.hpp"
#include "histogram/device_histogram.hpp"

namespace conv::histogram {
namespace {

using Clock = std::chrono::steady_clock;

// Wall-clock time of one phase of one round.
template <typename F>
double timed(F&& work) {
  const auto t0 = Clock::now();
  work();
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

// The samples of every phase, in the order phases first appear.
class Samples {
 public:
  void add(const std::string& phase, double ms) {
    for (auto& [name, values] : phases_)
      if (name == phase) {
        values.push_back(ms);
        return;
      }
    phases_.push_back({phase, {ms}});
  }
  std::vector<Phase> summarize_all() const {
    std::vector<Phase> out;
    for (const auto& [name, values] : phases_)
      out.push_back({name, values.front(), summarize(values)});
    return out;
  }

 private:
  std::vector<std::pair<std::string, std::vector<double>>> phases_;
};

}  // namespace

Breakdown breakdown(const DeviceChoice& choice, const RgbImage& image, const Variant& variant,
                    Settings settings, const std::string& kernel_file, const ProgramCache& cache,
                    int rounds) {
  Breakdown result;
  Samples samples;
  for (int round = 0; round < rounds; ++round) {
    std::vector<std::pair<std::string, double>> round_phases;
    auto record = [&](const std::string& phase, double ms) { round_phases.push_back({phase, ms}); };
    DeviceEntry entry;
    record("platform", timed([&] { entry = choose_device(choice); }));
    cl::Context context;
    record("context", timed([&] {
             cl_context_properties props[] = {
                 CL_CONTEXT_PLATFORM, reinterpret_cast<cl_context_properties>(entry.platform()), 0};
             context = cl::Context(entry.device, props);
           }));
    cl::CommandQueue queue;
    record("queue", timed([&] {
             queue = cl::CommandQueue(context, entry.device, CL_QUEUE_PROFILING_ENABLE);
           }));
    const DeviceFacts facts = read_facts(entry.device);

    record("read source", timed([&] {
             settings.kernel_source =
                 kernel_file.empty() ? std::string(variant.source) : read_text_file(kernel_file);
           }));
    if (!kernel_file.empty()) settings.kernel_label = kernel_file;
    const Plan plan = make_plan(variant, image.pixels(), settings, facts);
    cl::Program program;
    record("build (cold)", timed([&] {
             program = ProgramCache::build_cold(context, entry.device, plan.source, plan.options,
                                                plan.label);
           }));
    cache.store(program, entry.device, plan.source, plan.options);
    if (cache.enabled()) {
      std::optional<cl::Program> warm;
      const double ms = timed([&] {
        warm = cache.load(context, entry.device, plan.source, plan.options, &result.warm_note);
      });
      if (warm) {
        record("build (warm)", ms);
        program = *warm;  // run what a warm start would run
      }
    } else {
      result.warm_note = "the binary cache is off";
    }

    std::optional<DeviceHistogram> dh;
    record("create buffers", timed([&] { dh.emplace(context, plan); }));
    record("upload image", timed([&] { dh->upload(queue, image); }));
    dh->set_program(program, entry.device);
    dh->poison(queue);
    record("first launch", timed([&] { cl::Event::waitForEvents(dh->enqueue(queue)); }));
    const double read_ms = timed([&] { dh->read_back(queue); });
    Counts counts{};
    const double merge_ms = timed([&] { counts = dh->finish(); });
    if (round == 0) {
      result.counts = counts;
      result.plan = plan;
    }
    const auto events = dh->enqueue(queue);  // a second launch: no compilation left in it
    cl::Event::waitForEvents(events);
    record("kernels", span_ms(events.front(), events.back()));
    record("read back", read_ms);
    if (dh->merges_on_host()) record("host merge", merge_ms);

    // Everything a run pays for once, without the build; then each build.
    double common = 0, cold = 0, warm = -1;
    for (const auto& [phase, ms] : round_phases) {
      if (phase == "build (cold)")
        cold = ms;
      else if (phase == "build (warm)")
        warm = ms;
      else if (phase != "kernels")
        common += ms;
    }
    record("total (cold build)", common + cold);
    if (warm >= 0) record("total (warm build)", common + warm);
    for (const auto& [phase, ms] : round_phases) samples.add(phase, ms);
  }
  result.phases = samples.summarize_all();
  return result;
}

}  // namespace conv::histogram
