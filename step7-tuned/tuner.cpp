// build/bin/step7-tuned --tune: the search (docs/step7-tuned.md). For each
// filter width, the configurations of the search space that the device's
// limits allow, a descent from the documented defaults first, until the
// time budget is spent: each is first checked against the serial
// reference on a small random image, then timed on the problem given; the fastest is stored
// for this device, driver and width, where step 7 finds it next time.
#include "step7-tuned/tuner.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <optional>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <random>
#include <set>

#include "common/machinery/cli.hpp"
#include "common/machinery/device_choice.hpp"
#include "common/machinery/guard.hpp"
#include "common/machinery/parse.hpp"
#include "common/machinery/platform/files.hpp"
#include "common/machinery/program_cache.hpp"
#include "common/machinery/random_inputs.hpp"
#include "common/machinery/reference.hpp"
#include "common/machinery/report.hpp"
#include "common/machinery/roofline.hpp"
#include "common/machinery/settings.hpp"
#include "step7-tuned/tuning.hpp"

namespace conv {

std::unique_ptr<Step> make_step7_tuned();  // launcher.cpp

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// One line on stderr that redraws itself on a terminal; elsewhere (a log,
// a pipe) a line at every tenth of the way.
class Progress {
 public:
  Progress(int width, std::size_t total, double budget)
      : width_(width), total_(total), budget_(budget), tty_(stderr_is_terminal()) {}
  void show(std::size_t done, double elapsed, const std::string& best) {
    const double by_count = total_ ? static_cast<double>(done) / total_ : 1.0;
    const double by_time = budget_ > 0 ? elapsed / budget_ : 0.0;
    const double part = std::min(1.0, std::max(by_count, by_time));
    const int tenth = static_cast<int>(part * 10);
    if (!tty_ && tenth == last_tenth_ && done != total_) return;
    last_tenth_ = tenth;
    const int bars = static_cast<int>(part * 20);
    char line[256];
    std::snprintf(line, sizeof line, "tune F=%d [%s%s] %zu/%zu, %.0f of %.0f s, best %s", width_,
                  std::string(static_cast<std::size_t>(bars), '#').c_str(),
                  std::string(static_cast<std::size_t>(20 - bars), '.').c_str(), done, total_, elapsed, budget_,
                  best.c_str());
    std::cerr << (tty_ ? "\r" : "") << line << (tty_ ? "\x1b[K" : "\n") << std::flush;
  }
  void finish() {
    if (tty_) std::cerr << "\n";
  }

 private:
  int width_;
  std::size_t total_;
  double budget_;
  bool tty_;
  int last_tenth_ = -1;
};

std::string ms_text(double ms) {
  char text[32];
  std::snprintf(text, sizeof text, "%.4g ms", ms);
  return text;
}

}  // namespace

int tune_main(int argc, char** argv) {
  return guarded_main("step7-tuned --tune", [&]() -> int {
    CLI::App app("step7-tuned --tune: searches step 7's configurations on this device for each filter width, "
                 "checks each against the serial reference before timing it, and stores the fastest for this "
                 "device, driver and width (" + (tuned_store_path().empty() ? std::string("no cache folder here")
                                                                              : tuned_store_path()) +
                 "), where build/bin/step7-tuned finds it",
                 "step7-tuned --tune");
    bool tune = false;
    std::string image_spec = "synthetic:2048x2048", widths_text = "3,5,7,15,31", output;
    double budget = 120;
    int reps = 5;
    bool small = false, no_store = false;
    DeviceOptions device_options;
    app.add_flag("--tune", tune, "Tune (this mode)")->required();
    app.add_option("--image", image_spec, "The problem each candidate is timed on: an image file, or "
                                          "synthetic:WxH[:SEED]")->capture_default_str();
    app.add_option("--filter-widths", widths_text, "Filter widths to tune, comma-separated (random filters)")
        ->capture_default_str();
    app.add_option("--budget", budget, "Seconds of search per width; the search stops there and keeps "
                                       "the best so far")
        ->capture_default_str()->check(seconds_limit(86400));
    app.add_option("--reps", reps, "Timed launches per candidate")->capture_default_str()->check(CLI::Range(1, 1000));
    app.add_flag("--small", small, "A small space (two blocks, one work-group, fewer choices): a quick look");
    app.add_flag("--no-store", no_store, "Print the winners, store nothing");
    app.add_option("--output", output, "Also write every candidate's time as CSV to this file")->check(file_name());
    add_device_options(app, device_options);
    if (int rc = parse_command_line(app, argc, argv); rc >= 0) return rc;

    std::vector<int> widths;
    for (const auto& item : split_list(widths_text, "--filter-widths")) {
      const int w = parse_positive_int(item, "--filter-widths", 63);
      widths.push_back(w);
    }
    const Image image = load_image_spec(image_spec);
    DeviceContext device(device_options.choice);
    const DeviceFacts& facts = device.facts();
    const DeviceLimits limits = device_limits(device, false, [](const std::string& line) {
      std::cerr << "step7-tuned --tune: " << line << "\n";
    });
    auto step = make_step7_tuned();
    std::vector<Row> all_rows, winners;
    int wrong = 0;
    // Each width's winner: stored for this device and driver before, then
    // replaced by what this run finds. The nearest other width's (the
    // nearer, then the narrower first) is the search's second candidate.
    std::map<int, TunedConfig> known = stored_winners(facts);
    auto nearest_winner = [&](int F) -> std::optional<TunedConfig> {
      for (int d = 1; d < 63; ++d)
        for (int w : {F - d, F + d})
          if (const auto it = known.find(w); it != known.end()) return it->second;
      return std::nullopt;
    };
    for (int F : widths) {
      const Filter filter = parse_filter_spec("random:" + std::to_string(F));
      const Problem problem = make_problem(image, filter, Border::zero);
      // The check: the same filter over a small random image whose sizes are
      // no multiple of any block or work-group, against its exact answer (the
      // same filter, so that a kernel with the weights compiled in is built
      // once for both).
      std::mt19937 rng(1000u + static_cast<unsigned>(F));
      const Problem check = make_problem(random_image(97, 61, rng), filter, Border::clamp);
      const Reference reference = reference_correlate(check.padded, check.filter);
      // The order: the documented defaults, then the winner of the nearest
      // width already tuned on this device (in this run or stored before),
      // then a descent from the faster of the two, then the rest. The
      // descent takes one parameter at a time (weights, tile, shape, copy,
      // unroll, block, work-group), times each of its values with the others
      // at the best point so far (and what a value forces along with it),
      // moves there, and goes round again until a round finds nothing
      // faster: a few dozen candidates reach a good point whatever the
      // space's size. Then every configuration not yet timed, those of the
      // fastest structures first, until the budget is spent.
      const std::vector<TunedConfig> space = search_space(facts, F, small);
      auto structure = [](const TunedConfig& c) {
        return c.weights + " " + c.tile + " " + c.shape + " " + c.copy + " " + c.unroll;
      };
      std::map<std::string, double> structure_ms;  // each structure's fastest so far
      std::set<std::string> tried;
      const double outputs = static_cast<double>(problem.out_width()) * problem.out_height();
      const double flops = 2.0 * F * F * outputs;
      const double bytes = 4.0 * (static_cast<double>(problem.padded.pixels.size()) + outputs);
      Progress progress(F, space.size(), budget);
      const auto start = Clock::now();
      double best_ms = INFINITY, default_ms = NAN;
      TunedConfig best;
      Row best_row;
      std::size_t done = 0;
      int skipped = 0;
      bool out_of_time = false;
      auto try_config = [&](const TunedConfig& c) {
        if (out_of_time || !tried.insert(c.text()).second) return;
        if (done > 0 && seconds_since(start) > budget) {
          out_of_time = true;
          return;
        }
        ++done;
        RunOptions options;
        options.values = c.settings();
        options.wg_x = c.wg_x;
        options.wg_y = c.wg_y;
        try {
          const RunResult checked = run_step(*step, device, check, options, 0);
          const Comparison cmp = compare_with_reference(checked.output, reference, F);
          if (!cmp.passed()) {
            std::cerr << "\nstep7-tuned --tune: WRONG result, left out: " << c.text() << ": " << cmp.describe()
                      << "\n";
            ++wrong;
          } else {
            const RunResult timed = run_step(*step, device, problem, options, reps);
            Row row = problem_row(facts, "step7-tuned", c.text(), problem);
            row.wg = timed.work_group;
            fill_metrics(row, timed.stats, static_cast<long long>(problem.padded.pixels.size()));
            const RooflineShare share = roofline_share(limits, flops, bytes, timed.stats.median_ms);
            row.pct_limit = share.percent;
            row.limit = share.limit;
            row.max_abs_err = cmp.max_abs_err;
            row.max_rel_err = cmp.max_rel_err;
            all_rows.push_back(row);
            const double ms = timed.stats.median_ms;
            if (done == 1) default_ms = ms;  // the search starts at the defaults
            auto [it, fresh] = structure_ms.emplace(structure(c), ms);
            if (!fresh) it->second = std::min(it->second, ms);
            if (ms < best_ms) {
              best_ms = ms;
              best = c;
              best_row = row;
            }
          }
        } catch (const UsageError&) {
          throw;
        } catch (const KernelFault& e) {
          std::cerr << "\nstep7-tuned --tune: WRONG result, left out: " << c.text() << ": " << e.what() << "\n";
          ++wrong;
        } catch (const std::exception&) {  // a limit of the device this configuration passes
          ++skipped;
        }
        progress.show(done, seconds_since(start), std::isfinite(best_ms) ? ms_text(best_ms) : "-");
      };
      try_config(space.front());  // the documented defaults
      if (const auto near = nearest_winner(F); near && std::find(space.begin(), space.end(), *near) != space.end())
        try_config(*near);
      const std::vector<std::string> parameters = {"weights", "tile", "shape", "copy", "unroll", "block", "wg"};
      for (bool moved = true; moved && !out_of_time && std::isfinite(best_ms);) {
        moved = false;
        for (const auto& parameter : parameters) {
          const TunedConfig centre = best;
          for (const auto& c : descent_moves(space, centre, parameter)) try_config(c);
          moved = moved || !(best == centre);
        }
      }
      std::vector<TunedConfig> rest;
      for (const auto& c : space)
        if (!tried.count(c.text())) rest.push_back(c);
      auto structure_time = [&](const TunedConfig& c) {
        const auto t = structure_ms.find(structure(c));
        return t == structure_ms.end() ? INFINITY : t->second;
      };
      std::stable_sort(rest.begin(), rest.end(), [&](const TunedConfig& a, const TunedConfig& b) {
        return structure_time(a) < structure_time(b);
      });
      for (const auto& c : rest) try_config(c);
      progress.finish();
      if (!std::isfinite(best_ms)) throw Error("F = " + std::to_string(F) + ": no configuration ran on " + facts.name);
      Row winner = best_row;
      winner.speedup_prev = default_ms / best_ms;  // over the documented defaults
      winners.push_back(winner);
      std::cerr << "step7-tuned --tune: F = " << F << ": " << best.text() << ", " << ms_text(best_ms) << " ("
                << done << " of " << space.size() << " configurations in " << static_cast<int>(seconds_since(start))
                << " s, " << skipped << " over a device limit; the defaults: " << ms_text(default_ms) << ")\n";
      known[F] = best;
      if (!no_store && !store_winner(facts, F, best, best_ms))
        std::cerr << "step7-tuned --tune: could not store the winner (no usable cache folder)\n";
    }
    if (!output.empty()) {
      std::ofstream out(output);
      if (!out) throw Error(output + ": cannot write");
      write_csv_header(out);
      for (const Row& r : all_rows) write_csv_row(out, r);
    }
    std::cout << "Tuned on " << facts.name << " (driver " << facts.driver << "), " << image.width << "x"
              << image.height << ", random filters; x prev: the documented defaults' time over the winner's\n";
    write_table(std::cout, winners, true);
    if (!no_store && !tuned_store_path().empty()) std::cout << "Stored in " << tuned_store_path() << "\n";
    if (wrong > 0) {
      std::cerr << "step7-tuned --tune: " << wrong << " configuration(s) gave a WRONG result\n";
      return 1;
    }
    return 0;
  });
}

}  // namespace conv
