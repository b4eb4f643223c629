// The search over a Tunable's space, and the convolution steps' --tune
// (tuner.hpp; docs/step7-tuned.md).
#include "common/machinery/tuner.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <map>
#include <random>
#include <set>
#include <sstream>

#include "common/core/errors.hpp"
#include "common/core/run_step.hpp"
#include "common/core/timing.hpp"
#include "common/machinery/cli.hpp"
#include "common/machinery/device_choice.hpp"
#include "common/machinery/filter_specs.hpp"
#include "common/machinery/guard.hpp"
#include "common/machinery/image_files.hpp"
#include "common/machinery/parse.hpp"
#include "common/machinery/platform/files.hpp"
#include "common/machinery/random_inputs.hpp"
#include "common/machinery/reference.hpp"
#include "common/machinery/roofline.hpp"

namespace conv {

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

std::string ms_text(double ms) {
  char text[32];
  std::snprintf(text, sizeof text, "%.4g ms", ms);
  return text;
}

std::string percent_text(double fraction) {
  char text[32];
  std::snprintf(text, sizeof text, "%.0f %%", 100 * fraction);
  return text;
}

// One line on stderr that redraws itself on a terminal; elsewhere (a log,
// a pipe) a line at every tenth of the way.
class Progress {
 public:
  Progress(std::string label, std::size_t total, double budget)
      : label_(std::move(label)), total_(total), budget_(budget), tty_(stderr_is_terminal()) {}
  void show(std::size_t done, double elapsed, const std::string& best) {
    const double by_count = total_ ? static_cast<double>(done) / total_ : 1.0;
    const double by_time = budget_ > 0 ? elapsed / budget_ : 0.0;
    const double part = std::min(1.0, std::max(by_count, by_time));
    const int tenth = static_cast<int>(part * 10);
    if (!tty_ && tenth == last_tenth_ && done != total_) return;
    last_tenth_ = tenth;
    const int bars = static_cast<int>(part * 20);
    // The time is the search's, up to its budget: a candidate under way
    // when the budget runs out finishes, and the line then says so.
    char time[64];
    if (elapsed < budget_) std::snprintf(time, sizeof time, "%.0f of %.0f s", elapsed, budget_);
    else std::snprintf(time, sizeof time, "the %.0f s budget spent", budget_);
    char line[320];
    std::snprintf(line, sizeof line, "tune %s [%s%s] %zu/%zu, %s, best %s", label_.c_str(),
                  std::string(static_cast<std::size_t>(bars), '#').c_str(),
                  std::string(static_cast<std::size_t>(20 - bars), '.').c_str(), done, total_, time, best.c_str());
    std::cerr << (tty_ ? "\r" : "") << line << (tty_ ? "\x1b[K" : "\n") << std::flush;
  }
  void finish() {
    if (tty_) std::cerr << "\n";
  }

 private:
  std::string label_;
  std::size_t total_;
  double budget_;
  bool tty_;
  int last_tenth_ = -1;
};

// Points that differ in the fewest parameters from `p`, of those in `timed`:
// the fastest of them, the guess for an untimed point's time.
double guess(const TunePoint& p, const std::vector<std::pair<TunePoint, double>>& timed) {
  int fewest = 1 << 30;
  double ms = INFINITY;
  for (const auto& [q, t] : timed) {
    int diff = 0;
    for (const auto& [name, value] : p)
      if (!q.count(name) || q.at(name) != value) ++diff;
    if (diff < fewest || (diff == fewest && t < ms)) fewest = diff, ms = t;
  }
  return ms;
}

}  // namespace

SearchOutcome search(const SearchJob& job) {
  if (job.space.empty()) throw Error(job.label + ": no point of the search space runs on " + job.facts.name);
  const Tunable& tunable = *job.tunable;
  SearchOutcome out;
  out.space = job.space.size();
  out.defaults = job.space.front();
  std::set<TunePoint> tried;
  std::map<TunePoint, Measured> measured;
  std::vector<std::pair<TunePoint, double>> timed;
  Progress progress(job.label, job.space.size(), job.budget_s);
  const auto start = Clock::now();
  double best_ms = INFINITY;
  TunePoint best;
  bool out_of_time = false;
  auto try_point = [&](const TunePoint& p) {
    if (out_of_time || !tried.insert(p).second) return;
    if (!tried.empty() && tried.size() > 1 && seconds_since(start) > job.budget_s) {
      out_of_time = true;
      return;
    }
    try {
      Measured m = job.measure(p);
      if (!m.wrong.empty()) {
        std::cerr << "\n" << job.label << ": WRONG result, left out: " << point_text(tunable, p) << ": " << m.wrong
                  << "\n";
        ++out.wrong;
      } else {
        ++out.timed;
        timed.emplace_back(p, m.ms);
        if (m.ms < best_ms) best_ms = m.ms, best = p;
        measured[p] = m;
        out.all.push_back(m);
      }
    } catch (const DeviceLimit&) {
      ++out.skipped;
    }
    progress.show(tried.size(), seconds_since(start), std::isfinite(best_ms) ? ms_text(best_ms) : "-");
  };
  // The defaults, then the nearest problem's winner, then the descent from
  // the best so far: one parameter at a time, each of its values with the
  // others held (and what a value forces along), round after round until
  // one finds nothing faster; then the rest, those whose nearest timed
  // neighbour was fastest first, until the budget is spent.
  try_point(out.defaults);
  if (job.nearest && std::find(job.space.begin(), job.space.end(), *job.nearest) != job.space.end())
    try_point(*job.nearest);
  std::vector<std::string> parameters;
  for (const TuneParameter& p : tunable.tune_parameters()) parameters.push_back(p.name);
  parameters.push_back("wg");
  for (bool moved = true; moved && !out_of_time && std::isfinite(best_ms);) {
    moved = false;
    for (const auto& parameter : parameters) {
      const TunePoint centre = best;
      for (const auto& p : descent_moves(job.space, centre, parameter)) try_point(p);
      moved = moved || best != centre;
    }
  }
  if (!out_of_time) {
    std::vector<std::pair<double, TunePoint>> rest;
    for (const auto& p : job.space)
      if (!tried.count(p)) rest.emplace_back(guess(p, timed), p);
    std::stable_sort(rest.begin(), rest.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    for (const auto& [g, p] : rest) try_point(p);
  }
  progress.finish();
  out.seconds = seconds_since(start);
  if (!measured.count(out.defaults)) {
    if (!std::isfinite(best_ms)) throw Error(job.label + ": no configuration ran on " + job.facts.name);
    // The defaults cannot run here (over a limit the space did not know):
    // the fastest stands in for them.
    out.defaults = best;
  }

  // The re-timing: the defaults and the best few, each timed afresh in
  // turns, round after round, so that a drift of the machine's speed falls
  // on all of them alike.
  std::vector<std::pair<double, TunePoint>> ranked;
  for (const auto& [p, m] : measured) ranked.emplace_back(m.ms, p);
  std::sort(ranked.begin(), ranked.end());
  std::vector<TunePoint> finalists = {out.defaults};
  for (const auto& [ms, p] : ranked)
    if (static_cast<int>(finalists.size()) <= job.finalists && p != out.defaults) finalists.push_back(p);
  std::map<TunePoint, std::vector<double>> rounds;
  for (int r = 0; r < job.retime_rounds; ++r)
    for (std::size_t i = 0; i < finalists.size(); ++i) {
      const TunePoint& p = finalists[(i + r) % finalists.size()];
      try {
        rounds[p].push_back(job.retime(p));
      } catch (const DeviceLimit&) {
      }
    }
  std::map<TunePoint, double> medians;
  for (const auto& [p, times] : rounds)
    if (!times.empty()) medians[p] = summarize(times).median_ms;
  if (!medians.count(out.defaults)) medians[out.defaults] = measured[out.defaults].ms;
  out.default_ms = medians[out.defaults];
  const auto& d = rounds[out.defaults];
  if (d.size() >= 2)
    out.noise = (*std::max_element(d.begin(), d.end()) - *std::min_element(d.begin(), d.end())) /
                (2 * out.default_ms);
  out.best = out.defaults;
  out.best_ms = out.default_ms;
  for (const auto& [p, ms] : medians)
    if (ms < out.best_ms) out.best = p, out.best_ms = ms;
  const double margin = std::max(out.noise, 0.02);
  out.beats_defaults = out.best != out.defaults && out.best_ms < out.default_ms * (1 - margin);
  out.best_build_ms = measured[out.best].build_ms;
  out.default_build_ms = measured[out.defaults].build_ms;
  const std::string counts = std::to_string(out.timed) + " of " + std::to_string(out.space) + " timed in " +
                             std::to_string(static_cast<int>(out.seconds)) + " s" +
                             (out.skipped ? ", " + std::to_string(out.skipped) + " over a device limit" : "") +
                             "; re-timed " + std::to_string(job.retime_rounds) + " rounds in turns, noise " +
                             percent_text(out.noise);
  char ratio[32];
  std::snprintf(ratio, sizeof ratio, "%.2fx", out.default_ms / out.best_ms);
  if (out.beats_defaults) {
    out.verdict = job.problem.text() + ": " + point_text(tunable, out.best) + ", " + ms_text(out.best_ms) + ", " +
                  ratio + " the documented defaults' " + ms_text(out.default_ms) + " (" + counts + ")";
    // A build that costs more than a thousand runs save is worth knowing.
    const double saved_ms = 1000 * (out.default_ms - out.best_ms);
    if (out.best_build_ms - out.default_build_ms > saved_ms) {
      char note[160];
      std::snprintf(note, sizeof note,
                    "; its first build took %.1f s, more than 1,000 runs save (%.1f s): a gain only for long use",
                    out.best_build_ms / 1000, saved_ms / 1000);
      out.verdict += note;
    }
  } else if (out.noise > 0.2) {
    out.verdict = job.problem.text() + ": the machine is too noisy to tell (" + counts +
                  "): the documented defaults kept";
    out.best = out.defaults, out.best_ms = out.default_ms;
  } else {
    out.verdict = job.problem.text() + ": nothing beat the documented defaults by more than the noise (best " +
                  point_text(tunable, out.best) + ", " + ratio + "; " + counts + "): the defaults kept";
    out.best = out.defaults, out.best_ms = out.default_ms;
  }
  return out;
}

StoredWinner winner_to_store(const SearchOutcome& outcome) {
  StoredWinner w;
  w.point = outcome.beats_defaults ? outcome.best : outcome.defaults;
  w.ms = outcome.beats_defaults ? outcome.best_ms : outcome.default_ms;
  w.default_ms = outcome.default_ms;
  return w;
}

// ---- the convolution steps' front end ------------------------------------------

namespace {

RunOptions options_of(const TunePoint& p) {
  RunOptions options;
  for (const auto& [name, value] : p)
    if (name != "wg") options.values[name] = value;
  const auto [w, h] = parse_size(p.at("wg"), "wg", 1 << 14);
  options.wg_x = w;
  options.wg_y = h;
  return options;
}

}  // namespace

SearchOutcome tune_filter(Step& step, DeviceContext& device, const std::string& filter_spec,
                          const TuneSettings& settings) {
  const auto* tunable = dynamic_cast<const Tunable*>(&step);
  if (!tunable) throw UsageError(step.name() + " has no search space to tune");
  const DeviceFacts& facts = device.facts();
  const Filter filter = parse_filter_spec(filter_spec);
  const TuneProblem key = tunable->tune_problem(filter);
  const Image image = load_image_spec(settings.image_spec);
  const Problem problem = make_problem(image, filter, Border::zero);
  // The check: the same filter over a small random image whose sizes are
  // no multiple of any block or work-group, against its exact answer (the
  // same filter, so that a kernel with the weights compiled in is built
  // once for both).
  std::mt19937 rng(1000u + static_cast<unsigned>(filter.width));
  const Problem check = make_problem(random_image(97, 61, rng), filter, Border::clamp);
  const Reference reference = reference_correlate(check.padded, check.filter);
  const DeviceLimits limits = device_limits(device, false, [&](const std::string& line) {
    std::cerr << step.name() << " --tune: " << line << "\n";
  });
  const int F = filter.width;
  const double outputs = static_cast<double>(problem.out_width()) * problem.out_height();
  const double flops = 2.0 * F * F * outputs;
  const double bytes = 4.0 * (static_cast<double>(problem.padded.pixels.size()) + outputs);

  SearchJob job;
  job.tunable = tunable;
  job.facts = facts;
  job.problem = key;
  job.space = tune_space(*tunable, facts, key, settings.small);
  job.budget_s = settings.budget_s;
  job.label = step.name() + " " + key.text();
  // The nearest problem of the same kind already tuned here (the nearer,
  // then the smaller first).
  const auto known = stored_winners(*tunable, facts);
  long long nearest_gap = -1;
  for (const auto& [p, w] : known) {
    if (p.kind != key.kind || p.detail != key.detail || p == key) continue;
    const long long gap = std::llabs(p.size - key.size);
    if (nearest_gap < 0 || gap < nearest_gap) nearest_gap = gap, job.nearest = w.point;
  }
  job.measure = [&](const TunePoint& p) {
    Measured m;
    const RunOptions options = options_of(p);
    try {
      const auto built = Clock::now();
      const RunResult checked = run_step(step, device, check, options, 0, 0);
      m.build_ms = 1000 * seconds_since(built);
      const Comparison cmp = step.compare(checked.output, check, reference);
      if (!cmp.passed()) {
        m.wrong = cmp.describe();
        return m;
      }
      const RunResult run = run_step(step, device, problem, options, settings.reps);
      m.ms = run.stats.median_ms;
      Row row = problem_row(facts, step.name(), point_text(*tunable, p), problem);
      row.wg = run.work_group;
      fill_metrics(row, run.stats, static_cast<long long>(problem.padded.pixels.size()));
      const RooflineShare share = roofline_share(limits, flops, bytes, run.stats.median_ms);
      row.pct_limit = share.percent;
      row.limit = share.limit;
      row.max_abs_err = cmp.max_abs_err;
      row.max_rel_err = cmp.max_rel_err;
      m.row = row;
    } catch (const UsageError&) {
      throw;
    } catch (const KernelFault& e) {
      m.wrong = e.what();
    } catch (const std::exception& e) {  // a limit of the device this point passes
      throw DeviceLimit(e.what());
    }
    return m;
  };
  job.retime = [&](const TunePoint& p) {
    try {
      return run_step(step, device, problem, options_of(p), settings.reps).stats.median_ms;
    } catch (const UsageError&) {
      throw;
    } catch (const std::exception& e) {
      throw DeviceLimit(e.what());
    }
  };
  SearchOutcome outcome = search(job);
  std::cerr << step.name() << " --tune: " << outcome.verdict << "\n";
  if (settings.store) {
    if (!store_winner(*tunable, facts, key, winner_to_store(outcome)))
      std::cerr << step.name() << " --tune: could not store the result (no usable cache folder)\n";
  }
  return outcome;
}

int tune_step_main(int argc, char** argv, Step& step) {
  const std::string program = step.name() + " --tune";
  const auto* tunable = dynamic_cast<const Tunable*>(&step);
  const std::string default_filters = tunable ? tunable->tune_filters() : "";
  return guarded_main(program, [&]() -> int {
    const std::string store = tune_store_path();
    CLI::App app(program + ": searches " + step.name() +
                     "'s settings on this device for each filter, checks each against the serial reference "
                     "before timing it, times the best few again against the documented defaults in turns, "
                     "and stores a winner only when it is faster by more than the noise, for this device, "
                     "driver and filter (" + (store.empty() ? std::string("no cache folder here") : store) +
                     "), where later runs find it",
                 program);
    bool tune = false;
    TuneSettings settings;
    std::vector<std::string> filter_items, width_items;
    std::string output;
    bool no_store = false;
    DeviceOptions device_options;
    app.add_flag("--tune", tune, "Tune (this mode)")->required();
    app.add_option("--image", settings.image_spec,
                   "The problem each candidate is timed on: an image file, or synthetic:WxH[:SEED]")
        ->capture_default_str();
    app.add_option("--filters", filter_items,
                   "Filter specs to tune, comma-separated, as sweep's --filters (kind:A..B expands to widths A "
                   "to B); default " + default_filters);
    app.add_option("--filter-widths", width_items, "Shorthand: random filters of these widths, comma-separated");
    app.add_option("--budget", settings.budget_s,
                   "Seconds of search per filter; the search stops there and keeps the best so far (the "
                   "re-timing of the best few comes after)")
        ->capture_default_str()
        ->check(seconds_limit(86400));
    app.add_option("--reps", settings.reps, "Timed launches per candidate")
        ->capture_default_str()
        ->check(CLI::Range(1, 1000));
    app.add_flag("--small", settings.small, "A small space (a few values of each parameter): a quick look");
    app.add_flag("--no-store", no_store, "Print the winners, store nothing");
    app.add_option("--output", output,
                   "Also write every candidate's time as CSV to this file (.csv), once every filter is tuned")
        ->check(file_name());
    add_device_options(app, device_options);
    if (int rc = parse_command_line(app, argc, argv); rc >= 0) return rc;
    settings.store = !no_store;
    std::vector<std::string> specs = expand_filters(list_items(filter_items, "--filters"));
    for (const auto& w : list_items(width_items, "--filter-widths"))
      specs.push_back("random:" + std::to_string(parse_positive_int(w, "--filter-widths", kMaxFilterWidth)));
    if (specs.empty()) specs = split_list(default_filters, "--filters");
    for (const auto& s : specs) parse_filter_spec(s);  // every spec checked before any work
    load_image_spec(settings.image_spec);
    // The rows are kept and written at the end, whole, in one step: a run
    // that fails or is stopped leaves no CSV, and an old one stays as it was.
    std::ostringstream csv;
    if (!output.empty()) {
      check_output_path(output, {".csv"});  // and that it can be written
      write_csv_header(csv);
    }
    DeviceContext device(device_options.choice);
    const DeviceFacts& facts = device.facts();
    std::vector<Row> winners;
    int wrong = 0;
    for (const auto& spec : specs) {
      const SearchOutcome o = tune_filter(step, device, spec, settings);
      wrong += static_cast<int>(o.wrong);
      for (const Measured& m : o.all) {
        if (!output.empty()) write_csv_row(csv, m.row);
        if (point_text(*dynamic_cast<const Tunable*>(&step), o.best) == m.row.variant) {
          Row w = m.row;  // its rates scaled to the re-timed median
          w.gflops *= w.median_ms / o.best_ms;
          w.gbps *= w.median_ms / o.best_ms;
          w.pct_limit *= w.median_ms / o.best_ms;
          w.median_ms = o.best_ms;
          w.min_ms = NAN;  // the re-timing keeps medians only
          w.speedup_prev = o.default_ms / o.best_ms;
          winners.push_back(w);
        }
      }
    }
    if (!output.empty()) {
      const std::string text = csv.str();
      write_file_atomically(output, std::vector<std::uint8_t>(text.begin(), text.end()));
    }
    std::cout << "Tuned on " << facts.name << " (driver " << facts.driver << "), " << settings.image_spec
              << "; median ms re-timed; x prev: the documented defaults' time over the winner's\n";
    write_table(std::cout, winners, true);
    if (settings.store && !tune_store_path().empty()) std::cout << "Stored in " << tune_store_path() << "\n";
    if (wrong > 0) {
      std::cerr << program << ": " << wrong << " configuration(s) gave a WRONG result\n";
      return 1;
    }
    return 0;
  });
}

}  // namespace conv
