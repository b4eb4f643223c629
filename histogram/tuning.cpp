// The histogram's search space and its --tune (histogram/tuning.hpp).
#include "histogram/tuning.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <random>
#include <sstream>
#include <tuple>

#include "common/core/errors.hpp"
#include "common/machinery/cli.hpp"
#include "common/machinery/device_choice.hpp"
#include "common/machinery/image_files.hpp"
#include "common/machinery/parse.hpp"
#include "common/machinery/program_cache.hpp"
#include "common/machinery/report.hpp"
#include "histogram/counts.hpp"
#include "histogram/report.hpp"
#include "histogram/rgb_image.hpp"
#include "histogram/run.hpp"

namespace conv::histogram {

const char* const kDefaultImage = "synthetic:7728x4354";

namespace {

constexpr unsigned kMaxChunk = 1 << 16;  // what --chunk takes

// A whole number 1..`most`, else 0.
unsigned number_of(const std::string& text, unsigned most) {
  if (text.empty() || text.size() > 6 || text.find_first_not_of("0123456789") != std::string::npos) return 0;
  const unsigned long v = std::stoul(text);
  return v >= 1 && v <= most ? static_cast<unsigned>(v) : 0;
}

std::size_t work_group_limit(const DeviceFacts& facts) {
  std::size_t limit = facts.max_work_group ? facts.max_work_group : 1024;
  if (!facts.max_work_item_sizes.empty() && facts.max_work_item_sizes[0] > 0)
    limit = std::min<std::size_t>(limit, facts.max_work_item_sizes[0]);
  return limit;
}

// A spec as the shell takes it: quoted unless it is plain.
std::string shell_word(const std::string& text) {
  if (!text.empty() && text.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789:._/-+,=") ==
                           std::string::npos)
    return text;
  std::string quoted = "'";
  for (char c : text) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

// A synthetic image of exactly `pixels` pixels, as near square as the
// limit of a side allows; "" when none (a prime over the limit).
std::string synthetic_of(long long pixels) {
  if (pixels < 1 || pixels > kMaxImagePixels) return "";
  long long h = 1;
  for (long long d = 1; d * d <= pixels; ++d)
    if (pixels % d == 0) h = d;  // the largest divisor up to the square root
  const long long w = pixels / h;
  if (w > kMaxImageSide) return "";
  return "synthetic:" + std::to_string(w) + "x" + std::to_string(h);
}

}  // namespace

const std::vector<std::string>& tuned_variants() {
  static const std::vector<std::string> names = {"device-merge", "local-atomic", "local-words",
                                                 "one-launch",   "loads-ahead",  "lane-copies"};
  return names;
}

HistogramTunable::HistogramTunable(std::string image_spec, std::size_t pixels)
    : image_spec_(std::move(image_spec)), pixels_(pixels) {}

std::string HistogramTunable::tune_kernels() const {
  std::string text;
  for (const auto& name : tuned_variants()) text += find_variant(name).source;
  return text;
}

std::vector<TuneParameter> HistogramTunable::tune_parameters() const {
  TuneParameter variant{"variant",
                        "Which variant counts: device-merge (private partials, merged on the device) or one "
                        "of those that count in local memory",
                        tuned_variants(),
                        {"device-merge", "local-words", "loads-ahead"}};
  TuneParameter chunk{"chunk",
                      "Pixels per work-item",
                      {"64", "128", "256", "512", "1024", "2048", "4096", "8192"},
                      {"256", "1024"},
                      [](const std::string& v) {
                        return number_of(v, kMaxChunk) ? std::string()
                                                       : "chunk: a whole number 1 to " + std::to_string(kMaxChunk);
                      }};
  return {variant, chunk};
}

std::vector<std::string> HistogramTunable::tune_work_groups(const DeviceFacts& facts, const TuneProblem&) const {
  std::vector<std::string> groups;
  for (std::size_t wg = 32; wg <= 1024 && wg <= work_group_limit(facts); wg *= 2) groups.push_back(std::to_string(wg));
  return groups;
}

// One rule per kind of device, measured on the source's image size: on a
// GPU loads-ahead's whole call is the fastest (docs/results/histogram-h100.csv,
// 0.069 ms against one-launch's 0.078); on a CPU the local atomics are slow
// and device-merge's is the fastest (docs/results/histogram-pocl.csv, 42 ms
// against 215 ms and more for every local variant). Each keeps the
// variant's own chunk and work-group (variants.cpp), the work-group halved
// until the device takes it.
TunePoint HistogramTunable::tune_defaults(const DeviceFacts& facts, const TuneProblem&) const {
  const Variant& v = find_variant(facts.is_gpu ? "loads-ahead" : "device-merge");
  std::size_t wg = v.default_wg;
  while (wg > 1 && wg > work_group_limit(facts)) wg /= 2;
  return {{"variant", v.name}, {"chunk", std::to_string(v.default_chunk)}, {"wg", std::to_string(wg)}};
}

std::string HistogramTunable::tune_ruled_out(const DeviceFacts& facts, const TuneProblem& problem,
                                             const TunePoint& point) const {
  const auto variant = point.find("variant"), chunk = point.find("chunk"), wg = point.find("wg");
  if (variant == point.end() || chunk == point.end() || wg == point.end())
    return "a point names variant, chunk and wg";
  const auto& names = tuned_variants();
  if (std::find(names.begin(), names.end(), variant->second) == names.end())
    return "variant " + variant->second + " is not one the tuner searches";
  Settings settings;
  settings.chunk = number_of(chunk->second, kMaxChunk);
  settings.wg = number_of(wg->second, 1 << 12);
  if (!settings.chunk) return "chunk " + chunk->second + ": a whole number 1 to " + std::to_string(kMaxChunk);
  if (!settings.wg) return "wg " + wg->second + ": a whole number 1 to 4096";
  // 3 KiB of partial counts per work-item outweigh its chunk * 3 bytes of
  // image below 1024 pixels: more written, read back and added than read.
  if (variant->second == "device-merge" && settings.chunk < 1024)
    return "device-merge with chunk " + chunk->second + ": its partials (3 KiB a work-item) would outweigh the image";
  try {
    make_plan(find_variant(variant->second), static_cast<std::size_t>(problem.size), settings, facts);
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}

std::string HistogramTunable::tune_command(const TuneProblem& problem) const {
  std::string image = problem.size == static_cast<long long>(pixels_) && !image_spec_.empty()
                          ? image_spec_
                          : synthetic_of(problem.size);
  if (image.empty()) return "build/bin/histogram --tune --image SPEC (an image of " + std::to_string(problem.size) + " pixels)";
  return "build/bin/histogram --tune --image " + shell_word(image);
}

TuneProblem tune_problem_of(std::size_t pixels) { return {"pixels", static_cast<long long>(pixels), ""}; }

Chosen chosen(const TunePoint& point, Settings base) {
  Chosen c;
  c.variant = &find_variant(point.at("variant"));
  base.chunk = number_of(point.at("chunk"), kMaxChunk);
  base.wg = number_of(point.at("wg"), 1 << 12);
  c.settings = base;
  return c;
}

AutoChoice resolve_auto(const DeviceFacts& facts, const std::string& image_spec, std::size_t pixels,
                        const Settings& given_settings) {
  const HistogramTunable tunable(image_spec, pixels);
  TunePoint given;
  if (given_settings.chunk) given["chunk"] = std::to_string(given_settings.chunk);
  if (given_settings.wg) given["wg"] = std::to_string(given_settings.wg);
  const Resolved r = resolve_point(tunable, facts, tune_problem_of(pixels), given);
  if (!r.why.empty()) throw UsageError("--variant auto: " + r.why);
  AutoChoice a;
  a.chosen = chosen(r.point, given_settings);
  a.point = point_text(tunable, r.point);
  a.origin = r.origin;
  return a;
}

namespace {

// The search behind tune(); `rows` gets every candidate's whole call in
// the histogram's CSV columns.
SearchOutcome tune_image(DeviceContext& device, const std::string& spec, const RgbImage& image,
                         const TuneSettings& settings, std::vector<Row>* rows) {
  const DeviceFacts& facts = device.facts();
  const Counts expected = serial_count(image);
  // The check: a small random image whose pixel count is no multiple of
  // any chunk or work-group, so that every edge of a group is met.
  std::mt19937 rng(1000u + static_cast<unsigned>(image.pixels() % 1000));
  const RgbImage check = noise_rgb(97, 61, static_cast<std::uint32_t>(rng() | 1u));
  const Counts check_expected = serial_count(check);
  const HistogramTunable tunable(spec, image.pixels());
  const TuneProblem problem = tune_problem_of(image.pixels());
  const std::string program = "histogram --tune";

  SearchJob job;
  job.tunable = &tunable;
  job.facts = facts;
  job.problem = problem;
  job.space = tune_space(tunable, facts, problem, settings.small);
  job.budget_s = settings.budget_s;
  job.label = "histogram " + problem.text();
  // The nearest pixel count already tuned here (the nearer, then the smaller first).
  long long nearest_gap = -1;
  for (const auto& [p, w] : stored_winners(tunable, facts)) {
    if (p.kind != problem.kind || p == problem) continue;
    const long long gap = std::llabs(p.size - problem.size);
    if (nearest_gap < 0 || gap < nearest_gap) nearest_gap = gap, job.nearest = w.point;
  }
  // A refusal at run time (a kernel's own work-group limit, memory the
  // device will not give) is a device limit; a count that differs, a write
  // outside a buffer or a later run that counts differently is wrong.
  auto limit = [](auto&& work) {
    try {
      return work();
    } catch (const UsageError&) {
      throw;
    } catch (const KernelFault&) {
      throw;
    } catch (const std::exception& e) {
      throw DeviceLimit(e.what());
    }
  };
  job.measure = [&](const TunePoint& p) {
    Measured m;
    const Chosen c = chosen(p);
    try {
      const auto start = std::chrono::steady_clock::now();
      const VariantRun checked = limit([&] { return run_variant(device, check, *c.variant, c.settings, 1, 0); });
      m.build_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
      if (const std::string diff = describe_difference(checked.counts, check_expected); !diff.empty()) {
        m.wrong = "on noise:97x61, " + diff;
        return m;
      }
      const VariantRun run = limit([&] { return run_variant(device, image, *c.variant, c.settings, settings.reps); });
      if (const std::string diff = describe_difference(run.counts, expected); !diff.empty()) {
        m.wrong = "on " + spec + ", " + diff;
        return m;
      }
      m.ms = run.call.median_ms;
      stamp(m.row, facts);
      m.row.step = "histogram";
      m.row.variant = point_text(tunable, p);
      m.row.width = image.width;
      m.row.height = image.height;
      m.row.wg = p.at("wg");
      m.row.reps = run.call.reps;
      m.row.median_ms = run.call.median_ms;
      m.row.min_ms = run.call.min_ms;
      m.row.mean_ms = run.call.mean_ms;
      m.row.gbps = static_cast<double>(image.rgb.size()) / (run.call.median_ms * 1e6);
      if (rows) {
        Row r = make_row(facts, c.variant->name, "call", spec, image.width, image.height, run.call);
        r.chunk = run.plan.chunk;
        r.wg = run.plan.wg;
        rows->push_back(r);
      }
    } catch (const KernelFault& e) {
      m.wrong = e.what();
    }
    return m;
  };
  job.retime = [&](const TunePoint& p) {
    const Chosen c = chosen(p);
    return limit([&] { return run_variant(device, image, *c.variant, c.settings, settings.reps); }).call.median_ms;
  };
  SearchOutcome outcome = search(job);
  std::cerr << program << ": " << outcome.verdict << "\n";
  if (rows) {
    // The re-timing's medians (rounds in turns): the defaults, and what is
    // stored (the defaults again when nothing beat them).
    const StoredWinner stored = winner_to_store(outcome);
    for (const auto& [phase, point, ms] : {std::make_tuple("re-timed defaults", outcome.defaults, outcome.default_ms),
                                          std::make_tuple("re-timed winner", stored.point, stored.ms)}) {
      Stats stats;
      stats.median_ms = ms;
      stats.reps = job.retime_rounds;
      const Chosen c = chosen(point);
      Row r = make_row(facts, c.variant->name, phase, spec, image.width, image.height, stats);
      r.min_ms = r.mean_ms = NAN;
      r.chunk = c.settings.chunk;
      r.wg = c.settings.wg;
      rows->push_back(r);
    }
  }
  if (settings.store && !store_winner(tunable, facts, problem, winner_to_store(outcome)))
    std::cerr << program << ": could not store the result (no usable cache folder)\n";
  return outcome;
}

std::string ms_text(double ms) {
  char text[32];
  std::snprintf(text, sizeof text, "%.4g", ms);
  return text;
}

}  // namespace

SearchOutcome tune(DeviceContext& device, const std::string& image_spec, const TuneSettings& settings) {
  const std::string spec = image_spec.empty() ? settings.image_spec : image_spec;
  return tune_image(device, spec, load_rgb_spec(spec), settings, nullptr);
}

int tune_main(int argc, char** argv) {
  const std::string program = "histogram --tune";
  return guarded_main(program, [&]() -> int {
    const std::string store = tune_store_path();
    CLI::App app(program + ": searches the fast variants, pixels per work-item and work-group on this device for "
                     "this image's pixel count, checks each candidate's counts against the serial count before "
                     "timing its whole call, times the best few again against the documented defaults in turns, "
                     "and stores a winner only when it is faster by more than the noise, for this device, driver "
                     "and pixel count (" + (store.empty() ? std::string("no cache folder here") : store) +
                     "), where a run with --variant auto finds it",
                 program);
    bool tune = false, no_store = false, no_cache = false;
    TuneSettings settings;
    settings.image_spec = kDefaultImage;
    std::string output;
    DeviceOptions device_options;
    app.add_flag("--tune", tune, "Tune (this mode)")->required();
    app.add_option("--image", settings.image_spec,
                   "The image each candidate is timed on (its pixel count is what the winner is for): a file, "
                   "synthetic:WxH[:SEED], noise:WxH[:SEED] or solid:WxH[:RRGGBB]")
        ->capture_default_str();
    app.add_option("--budget", settings.budget_s,
                   "Seconds of search; the search stops there and keeps the best so far (the re-timing of the "
                   "best few comes after)")
        ->capture_default_str()
        ->check(seconds_limit(86400));
    app.add_option("--reps", settings.reps, "Timed whole calls per candidate, after one warm-up")
        ->capture_default_str()
        ->check(CLI::Range(1, 1000));
    app.add_flag("--small", settings.small, "A small space (a few values of each parameter): a quick look");
    app.add_flag("--no-store", no_store, "Print the winner, store nothing");
    app.add_option("--output", output,
                   "Also write every candidate's whole call as CSV to this file (phase call), then the re-timed "
                   "medians of the defaults and of what is stored (phases re-timed defaults, re-timed winner)")
        ->check(file_name());
    app.add_flag("--no-binary-cache", no_cache, "Always compile from source (also: CLCONV_NO_BINARY_CACHE=1)");
    add_device_options(app, device_options);
    if (int rc = parse_command_line(app, argc, argv); rc >= 0) return rc;
    settings.store = !no_store;
    if (!output.empty()) check_output_path(output, {".csv"});  // and that it can be written
    const RgbImage image = load_rgb_spec(settings.image_spec);  // a bad spec before any device work

    DeviceContext device(device_options.choice);
    device.use_binary_cache(ProgramCache::for_user(no_cache));
    const DeviceFacts& facts = device.facts();
    std::vector<Row> rows;
    const SearchOutcome o = tune_image(device, settings.image_spec, image, settings, &rows);
    if (!output.empty()) {  // whole, in one step: an old file stays until then
      std::ostringstream csv;
      write_csv(csv, rows);
      const std::string text = csv.str();
      write_file_atomically(output, std::vector<std::uint8_t>(text.begin(), text.end()));
    }
    const HistogramTunable tunable;
    std::cout << "Tuned on " << facts.name << " (driver " << facts.driver << "), " << settings.image_spec << " ("
              << tune_problem_of(image.pixels()).text() << "); ms: the whole call's median, re-timed in turns\n";
    std::cout << "| variant | chunk | wg | ms | the defaults | their ms | x defaults |\n"
              << "| " << o.best.at("variant") << " | " << o.best.at("chunk") << " | " << o.best.at("wg") << " | " << ms_text(o.best_ms) << " | " << point_text(tunable, o.defaults)
              << " | " << ms_text(o.default_ms) << " | " << ms_text(o.default_ms / o.best_ms) << "x |\n";
    if (settings.store && !store.empty()) std::cout << "Stored in " << store << "\n";
    if (o.wrong > 0) {
      std::cerr << program << ": " << o.wrong << " configuration(s) gave a WRONG count\n";
      return 1;
    }
    return 0;
  });
}

}  // namespace conv::histogram
