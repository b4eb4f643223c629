#include "histogram/app.hpp"

#include <algorithm>
#include <iostream>

#include "common/core/program.hpp"
#include "common/machinery/cli.hpp"
#include "common/machinery/device_choice.hpp"
#include "common/machinery/files.hpp"
#include "common/machinery/guard.hpp"
#include "common/machinery/program_cache.hpp"
#include "common/machinery/reference.hpp"
#include "common/machinery/report.hpp"
#include "common/machinery/roofline.hpp"
#include "common/machinery/settings.hpp"
#include "common/machinery/supervisor.hpp"
#include "common/machinery/watchdog.hpp"
#include "histogram/breakdown.hpp"
#include "histogram/report.hpp"
#include "histogram/run.hpp"
#include "histogram/tuning.hpp"

namespace conv::histogram {
namespace {

// The expected counts of one image, computed once, only if needed.
class Expected {
 public:
  explicit Expected(const RgbImage& image) : image_(image) {}
  const Counts& get() {
    if (!ready_) counts_ = serial_count(image_), ready_ = true;
    return counts_;
  }

 private:
  const RgbImage& image_;
  Counts counts_{};
  bool ready_ = false;
};

// One stderr line per checked variant; returns false on a difference.
bool check(const std::string& variant, const std::string& image, const Counts& got,
           Expected& expected) {
  const std::string diff = describe_difference(got, expected.get());
  std::cerr << "verify: " << variant << " on " << image << ": "
            << (diff.empty() ? "OK" : "FAILED, " + diff) << "\n";
  return diff.empty();
}

// The serial count, timed like the kernels; the sum keeps the work alive.
Stats time_serial(const RgbImage& image, int reps) {
  std::uint32_t sink = 0;
  const Stats stats = time_host([&] { sink += serial_count(image)[0]; }, reps);
  volatile std::uint32_t keep = sink;
  (void)keep;
  return stats;
}

// speedup_serial = serial time / this row's time, for the rows named.
void fill_speedups(std::vector<Row>& rows, const std::string& serial_phase,
                   const std::vector<std::string>& phases) {
  for (auto& r : rows) {
    if (std::find(phases.begin(), phases.end(), r.phase) == phases.end()) continue;
    for (const auto& s : rows)
      if (s.variant == "serial" && s.phase == serial_phase && s.image == r.image && r.median_ms > 0)
        r.speedup_serial = s.median_ms / r.median_ms;
  }
}

// `notes`: what --variant auto ran on each image and why; on stderr under
// --csv, which keeps stdout to the CSV.
void print(const Options& o, const DeviceFacts& facts, const std::vector<Row>& rows,
           const std::vector<std::string>& notes = {}) {
  if (o.csv) {
    for (const auto& note : notes) std::cerr << "histogram: " << note << "\n";
    write_csv(std::cout, rows);
    return;
  }
  std::cout << "histogram on " << facts.name << " (" << facts.platform << ", driver "
            << facts.driver << ")\n";
  for (const auto& note : notes) std::cout << note << "\n";
  if (o.breakdown)
    write_breakdown_table(std::cout, rows);
  else
    write_run_table(std::cout, rows);
}

// The images are given as their specs, each checked before any device work
// (run_histogram) and loaded only when its turn comes: one image in memory
// at a time, however many --image a run names.
// Several runs take a while (every variant on the default image: half a
// minute on 2 cores): a progress line on stderr before each.
struct Progress {
  std::size_t runs, started = 0;
  void next(const std::string& name, const std::string& spec) {
    if (runs > 1) std::cerr << "histogram: [" << ++started << "/" << runs << "] " << name << " on " << spec << "\n";
  }
};

int measured_runs(const Options& o, const std::vector<std::string>& specs,
                  const std::vector<std::string>& names, Counts& first) {
  DeviceContext context(o.device);
  context.use_binary_cache(ProgramCache::for_user(o.no_cache));
  const DeviceFacts& facts = context.facts();
  DeviceLimits limits;
  if (o.limits)
    limits = device_limits(context, false, [&](const std::string& line) {
      if (!o.csv) std::cerr << "histogram: " << line << "\n";
    });

  std::vector<Row> rows;
  std::vector<std::string> notes;
  bool all_ok = true, have_first = false;
  Progress progress{specs.size() * names.size()};
  for (const std::string& spec : specs) {
    const RgbImage image = load_rgb_spec(spec);
    Expected expected(image);
    auto row = [&](const std::string& variant, const std::string& phase, const Stats& stats) {
      Row r = make_row(facts, variant, phase, spec, image.width, image.height, stats);
      if (o.limits) {
        r.copy_gbps = limits.copy_gbps;
        if (phase == "kernels" || phase == "histogram" || phase == "call") r.pct_copy = 100.0 * r.gbps / r.copy_gbps;
      }
      return r;
    };
    for (const auto& name : names) {
      progress.next(name, spec);
      if (name == "serial") {
        if (!have_first) first = expected.get(), have_first = true;
        rows.push_back(row("serial", "histogram", time_serial(image, o.reps)));
        continue;
      }
      const Variant* variant = name == "auto" ? nullptr : &find_variant(name);
      Settings settings = o.settings;
      if (!variant) {  // the tuned winner for this pixel count, else the defaults
        const AutoChoice a = resolve_auto(facts, spec, image.pixels(), o.settings);
        variant = a.chosen.variant;
        settings = a.chosen.settings;
        notes.push_back("auto on " + spec + ": " + a.point + " (" + a.origin + ")");
      }
      const VariantRun run = run_variant(context, image, *variant, settings, o.reps);
      for (const auto& [phase, stats] :
           std::vector<std::pair<std::string, Stats>>{{"kernels", run.device},
                                                      {"read back", run.read_back},
                                                      {"host merge", run.merge},
                                                      {"histogram", run.total},
                                                      {"call", run.call}}) {
        if (phase == "host merge" && run.plan.variant->merge != Merge::host) continue;
        Row r = row(variant->name, phase, stats);
        r.chunk = run.plan.chunk;
        r.wg = run.plan.wg;
        rows.push_back(r);
      }
      if (o.verify)
        all_ok &= check(name == "auto" ? "auto (" + variant->name + ")" : name, spec, run.counts, expected);
      if (!have_first) first = run.counts, have_first = true;
    }
  }
  fill_speedups(rows, "histogram", {"histogram"});
  print(o, facts, rows, notes);
  return all_ok ? 0 : 1;
}

int breakdown_runs(const Options& o, const std::vector<std::string>& specs,
                   const std::vector<std::string>& names, Counts& first) {
  const ProgramCache cache = ProgramCache::for_user(o.no_cache);
  std::vector<Row> rows;
  bool all_ok = true, have_first = false;
  Progress progress{specs.size() * names.size()};
  for (const std::string& spec : specs) {
    const RgbImage image = load_rgb_spec(spec);
    Expected expected(image);
    for (const auto& name : names) {
      progress.next(name, spec);
      if (name == "serial") {
        Row r = make_row({}, "serial", "serial count", spec, image.width, image.height,
                         time_serial(image, o.reps));
        r.gbps = NAN;  // a phase, not a bandwidth
        rows.push_back(r);
        if (!have_first) first = expected.get(), have_first = true;
        continue;
      }
      const Breakdown b =
          breakdown(o.device, image, find_variant(name), o.settings, o.kernel_file, cache, o.reps);
      if (cache.enabled() && !b.warm_note.empty())
        std::cerr << "breakdown: no warm build for " << name << ": " << b.warm_note << "\n";
      for (const auto& phase : b.phases) {
        Row r = make_row({}, name, phase.name, spec, image.width, image.height, phase.stats);
        r.first_ms = phase.first_ms;
        r.chunk = b.plan.chunk;
        r.wg = b.plan.wg;
        if (phase.name != "kernels") r.gbps = NAN;
        rows.push_back(r);
      }
      if (o.verify) all_ok &= check(name, spec, b.counts, expected);
      if (!have_first) first = b.counts, have_first = true;
    }
  }
  // Read after the rounds, so that the first round is the first to load the driver.
  const DeviceFacts facts = read_facts(choose_device(o.device).device);
  for (auto& r : rows) {
    r.device = facts.name;
    r.driver = facts.driver;
  }
  fill_speedups(rows, "serial count", {"total (cold build)", "total (warm build)"});
  print(o, facts, rows);
  return all_ok ? 0 : 1;
}

}  // namespace

std::vector<std::string> parse_variants(const std::string& text) {
  std::vector<std::string> asked;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t comma = std::min(text.find(',', start), text.size());
    const std::string name = text.substr(start, comma - start);
    if (name == "all") {
      asked.push_back("serial");
      for (const auto& v : device_variants()) asked.push_back(v.name);
    } else if (name != "serial" && name != "auto") {
      find_variant(name);  // throws UsageError for an unknown one
      asked.push_back(name);
    } else {
      asked.push_back(name);
    }
    start = comma + 1;
  }
  // Lesson order, each once.
  std::vector<std::string> names;
  if (std::find(asked.begin(), asked.end(), "serial") != asked.end()) names.push_back("serial");
  if (std::find(asked.begin(), asked.end(), "auto") != asked.end()) names.push_back("auto");
  for (const auto& v : device_variants())
    if (std::find(asked.begin(), asked.end(), v.name) != asked.end()) names.push_back(v.name);
  return names;
}

int run_histogram(const Options& o) {
  const std::vector<std::string> names = parse_variants(o.variants);
  const auto device_count = std::count_if(names.begin(), names.end(),
                                          [](const std::string& n) { return n != "serial"; });
  const bool auto_asked = std::find(names.begin(), names.end(), "auto") != names.end();
  if (!o.kernel_file.empty() && (device_count != 1 || auto_asked))
    throw UsageError("--kernel replaces one variant's kernel: name exactly one device --variant");
  if (o.breakdown && auto_asked)  // auto reads the device first, which would load the driver before round one
    throw UsageError("--breakdown times named variants from nothing: name them with --variant (not auto)");
  if (o.limits && o.breakdown)
    throw UsageError("--limits applies to measured runs, not --breakdown");
  if (!o.output.empty()) {
    check_output_path(o.output, {".csv"});  // before any work: the folder takes a file
    if (o.images.size() != 1) throw UsageError("--output needs exactly one --image");
  }
  Options options = o;
  if (!o.kernel_file.empty() && !o.breakdown) {  // --breakdown times the read itself
    options.settings.kernel_source = read_text_file(o.kernel_file);
    options.settings.kernel_label = o.kernel_file;
  }
  // Every image checked before any device work (a bad one named at once, not
  // after the others' runs); each is loaded again when its turn comes.
  for (const auto& spec : o.images) check_rgb_spec(spec);

  // With --kernel, the runs in a child process: a kernel that ends the
  // process by a signal is reported in one line (common/machinery/supervisor.hpp).
  return run_supervised("histogram", o.kernel_file, [&] {
    Counts first{};
    const double timeout = o.timeout >= 0 ? o.timeout : o.kernel_file.empty() ? 0 : kDefaultKernelTimeout;
    const std::string limit = "stopped after --timeout " + std::to_string(static_cast<long long>(timeout)) + " s";
    const Watchdog watchdog("histogram", timeout, limit + ": the kernel did not finish (does it loop forever?)",
                            limit + " while the kernel was being built: the OpenCL compiler did not finish");
    const int status = o.breakdown ? breakdown_runs(options, o.images, names, first)
                                   : measured_runs(options, o.images, names, first);
    if (!o.output.empty() && status != 0)  // counts that failed --verify are not kept
      std::cerr << "histogram: " << o.output << " not written: verification failed\n";
    if (!o.output.empty() && status == 0) {
      const std::string text = counts_csv(first);
      write_file_atomically(o.output, std::vector<std::uint8_t>(text.begin(), text.end()));
    }
    return status;
  });
}

}  // namespace conv::histogram
