// The tour: the serial baseline and every registered step on one image and
// filter, side by side, with speedups and the share of the device's measured
// limits. Every step in common/machinery/registry.cpp is run here.
#include <iostream>
#include <map>
#include <set>

#include "common/machinery/cli.hpp"
#include "common/machinery/device_choice.hpp"
#include "common/machinery/guard.hpp"
#include "common/machinery/parse.hpp"
#include "common/machinery/program_cache.hpp"
#include "common/machinery/reference.hpp"
#include "common/machinery/registry.hpp"
#include "common/machinery/report.hpp"
#include "common/machinery/roofline.hpp"
#include "common/machinery/settings.hpp"

using namespace conv;

int main(int argc, char** argv) {
  return guarded_main("tour", [&]() -> int {
    CLI::App app(
        "tour: the serial baseline and every step on one image and filter, in one table "
        "(median kernel time, speedups, GFLOP/s, GB/s, % of the device's measured limit, "
        "max error against the serial reference)",
        "tour");
    DeviceOptions device_options;
    ProblemOptions problem_options;
    std::string wg = "auto";
    int reps = 10, serial_reps = 3;
    bool csv = false, reprobe = false, all_variants = false, recommend = false;
    std::vector<std::string> set_texts;
    add_problem_options(app, problem_options);
    app.add_option("--wg", wg,
                   "Work-group shape WxH for every step, or auto: each step's default (16x16 but for steps 7, 8 "
                   "and 10, which pick their own: the same as running the step's executable)")
        ->capture_default_str();
    app.add_option("--reps", reps, "Timed launches per step")
        ->capture_default_str()
        ->check(CLI::Range(1, 100000));
    app.add_option("--serial-reps", serial_reps, "Timed runs of the serial baseline")
        ->capture_default_str()
        ->check(CLI::Range(1, 1000));
    app.add_flag("--all-variants", all_variants,
                 "One row per variant, not only each step's default (and the variant the next step "
                 "builds on, which x prev needs)");
    app.add_option("--set", set_texts,
                   "A step's own option, NAME=VALUE (for example block=8x2: the block of steps 6 and "
                   "7); steps without it ignore it");
    app.add_flag("--reprobe", reprobe, "Measure the device limits again instead of using the cache");
    app.add_flag("--csv", csv, "Print CSV (one header row) instead of a table");
    app.add_flag("--recommend", recommend,
                 "Which step to use for this filter on this device: only the last step of each algorithm (7: the "
                 "direct sum, 8: separable passes, 9: the FFT, 10: tiled FFT), each at its tuned winner for this "
                 "device where one is stored (else its documented defaults), no serial baseline; names the steps "
                 "not yet tuned for this filter and the command that tunes each");
    add_device_options(app, device_options);
    if (int rc = parse_command_line(app, argc, argv); rc >= 0) return rc;

    RunOptions run;
    std::tie(run.wg_x, run.wg_y) =
        wg == "auto" ? std::pair<int, int>{0, 0} : parse_size(wg, "--wg", 1 << 14);  // 0x0: each step's own
    auto steps = all_steps();
    if (recommend) {  // the algorithms' last steps only
      std::vector<std::unique_ptr<Step>> last;
      const std::set<std::string> names = {"step7-tuned", "step8-separable", "step9-fft", "step10-fft-tiled"};
      for (auto& step : steps)
        if (names.count(step->name())) last.push_back(std::move(step));
      steps = std::move(last);
    }
    // --set NAME=VALUE: for the steps that have the option. Every run the
    // tour will make is checked now, before any work (common/core/step.hpp).
    std::map<std::string, std::string> sets;
    std::vector<std::string> names;
    for (const auto& text : set_texts) {
      const auto [name, value] = split_setting(text, "--set");
      names.push_back(name);
      add_setting(sets, name, value);
    }
    // The variants each step runs: its first, the one the next step builds
    // on, or with --all-variants every one.
    auto variants_of = [&](std::size_t i) {
      const auto all = steps[i]->variants();
      if (all_variants) return all;
      std::vector<std::string> variants = {all.front()};
      const std::string next_builds_on = i + 1 < steps.size() ? steps[i + 1]->builds_on() : "";
      if (!next_builds_on.empty() && next_builds_on != all.front()) variants.push_back(next_builds_on);
      return variants;
    };
    // A setting is refused only when no variant that runs uses it, and
    // given to those that do.
    std::vector<StepVariants> runs;
    for (std::size_t i = 0; i < steps.size(); ++i) runs.push_back({steps[i].get(), variants_of(i)});
    check_setting_names(runs, names, "the tour picks them; see --all-variants");
    auto options_for = [&](const Step& step, const std::string& variant) {
      RunOptions options = run;
      options.values["variant"] = variant;
      for (const auto& o : step.options())
        if (sets.count(o.name) && step.uses(o.name, variant)) options.values[o.name] = sets[o.name];
      return options;
    };
    for (std::size_t i = 0; i < steps.size(); ++i)
      for (const auto& variant : variants_of(i)) steps[i]->check_options(options_for(*steps[i], variant));
    const Border border = parse_border(problem_options.border);
    const Filter filter = parse_filter_spec(problem_options.filter);
    const Image image = load_image_spec(problem_options.image);
    const Problem problem = make_problem(image, filter, border);
    DeviceContext device(device_options.choice);
    const auto& facts = device.facts();
    // Every run's settings against the device, before the first run: a
    // setting a step can refuse only once it knows the device's defaults
    // (step 8: a --method and a setting that method runs without) stops the
    // tour here, not after the steps before it have run.
    for (std::size_t i = 0; i < steps.size(); ++i)
      for (const auto& variant : variants_of(i))
        steps[i]->default_work_group(facts, filter, options_for(*steps[i], variant));

    std::cerr << "tour: " << facts.name << ", " << image.width << "x" << image.height
              << ", filter " << filter.name << "\n";
    const DeviceLimits limits = device_limits(device, reprobe, [](const std::string& line) {
      std::cerr << "tour: " << line << "\n";  // only when it measures
    });
    std::cerr << "tour: serial reference and baseline...\n";
    const Reference reference = reference_correlate(problem.padded, filter);

    const double outputs = static_cast<double>(problem.out_width()) * problem.out_height();
    const double flops = 2.0 * filter.width * filter.width * outputs;
    const double bytes = 4.0 * (static_cast<double>(problem.padded.pixels.size()) + outputs);
    auto base_row = [&](const std::string& step, const std::string& variant) {
      return problem_row(facts, step, variant, problem);
    };
    // `step` checks the output with its own error bound; null: the serial loop.
    auto finish_row = [&](Row& row, const Stats& stats, const Image& output, double serial_ms,
                          double prev_ms, const Step* step) {
      fill_metrics(row, stats, static_cast<long long>(problem.padded.pixels.size()));
      const auto share = roofline_share(limits, flops, bytes, stats.median_ms);
      row.pct_limit = share.percent;
      row.limit = share.limit;
      row.speedup_serial = serial_ms / stats.median_ms;
      row.speedup_prev = prev_ms / stats.median_ms;
      const auto cmp = step ? step->compare(output, problem, reference)
                            : compare_with_reference(output, reference, filter.width);
      row.max_abs_err = cmp.max_abs_err;
      row.max_rel_err = cmp.max_rel_err;
      return cmp;
    };

    std::vector<Row> rows;
    Stats serial;
    serial.median_ms = NAN;
    if (!recommend) {
      Image serial_out;
      serial = time_host([&] { serial_out = serial_correlate(problem.padded, filter); }, serial_reps);
      Row serial_row = base_row("serial", "float-loop");
      finish_row(serial_row, serial, serial_out, serial.median_ms, NAN, nullptr);
      serial_row.wg = "";
      rows.push_back(serial_row);
    }
    std::map<std::string, std::string> untuned;  // step -> the note that says how to tune it
    std::map<std::string, std::string> origin;   // step -> "tuned winner" or "defaults"

    // "x prev" isolates one idea: a step's first variant over the variant of
    // the step before that it builds on (Step::builds_on), a later variant
    // over its own step's first. Without --all-variants the tour still runs
    // each variant a later step builds on.
    int failures = 0;
    Row fastest;  // the quickest correct step: the one to use for this filter
    std::map<std::string, double> measured_ms;  // "step variant" -> median
    std::string baseline_key = "serial";
    measured_ms[baseline_key] = serial.median_ms;
    for (std::size_t i = 0; i < steps.size(); ++i) {
      auto& step = steps[i];
      const auto all = step->variants();
      const std::string next_builds_on = i + 1 < steps.size() ? steps[i + 1]->builds_on() : "";
      for (const auto& variant : variants_of(i)) {
        const std::string key = step->name() + " " + variant;
        const std::string compared_with =
            variant == all.front() ? baseline_key : step->name() + " " + all.front();
        const double prev_ms = measured_ms.count(compared_with) ? measured_ms[compared_with] : NAN;
        RunOptions options = options_for(*step, variant);
        if (options.wg_x == 0)  // --wg auto
          std::tie(options.wg_x, options.wg_y) = step->default_work_group(facts, filter, options);
        const std::string described = step->describe(options);
        std::cerr << "tour: " << step->name() << (described != "default" ? " " + described : "") << "...\n";
        try {
          RunResult result = run_step(*step, device, problem, options, reps);
          Row row = base_row(step->name(), described);
          row.wg = result.work_group;
          auto cmp = finish_row(row, result.stats, result.output, serial.median_ms, prev_ms, step.get());
          if (!result.note.empty()) std::cerr << "tour: " << step->name() << ": " << result.note << "\n";
          // A tunable step's note says where its settings came from
          // (common/machinery/tuning.hpp, resolve_point).
          const auto to_tune = result.note.find("; to tune ");
          if (to_tune != std::string::npos) {
            const auto colon = result.note.find(": ", to_tune);
            const auto end = result.note.find_first_of(");", colon);
            untuned[step->name()] = result.note.substr(colon + 2, end == std::string::npos ? end : end - colon - 2);
          }
          origin[step->name()] = result.note.find("tuned winner") != std::string::npos ? "tuned winner"
                                 : result.note.find("documented defaults") != std::string::npos
                                     ? "documented defaults"
                                     : "";
          if (cmp.passed() && (fastest.step.empty() || row.median_ms < fastest.median_ms))
            fastest = row;
          if (!cmp.passed()) {
            std::cerr << "tour: " << step->name() << " " << described << " is WRONG: "
                      << cmp.describe() << "\n";
            ++failures;
          }
          rows.push_back(row);
          measured_ms[key] = row.median_ms;
        } catch (const UsageError&) {
          throw;
        } catch (const std::exception& e) {
          std::cerr << "tour: " << step->name() << " " << described << " failed: " << e.what() << "\n";
          ++failures;
        }
      }
      baseline_key = step->name() + " " + (next_builds_on.empty() ? all.front() : next_builds_on);
    }

    if (csv) {
      write_csv_header(std::cout);
      for (const auto& row : rows) write_csv_row(std::cout, row);
    } else {
      std::cout << "Device: " << facts.name << " (" << facts.platform << ", driver "
                << facts.driver << ", " << facts.compute_units << " compute units)\n"
                << "Measured limits: copy " << limits.copy_gbps << " GB/s, FMA "
                << limits.fma_gflops << " GFLOP/s\n"
                << "Problem: " << image.width << "x" << image.height << ", filter " << filter.name
                << " (" << filter.width << "x" << filter.width << "), border "
                << border_name(border) << ", work-group " << (wg == "auto" ? "each step's default" : wg)
                << ", median of " << reps
                << " launches\n\n";
      write_table(std::cout, rows, true);
    }
    if (!csv && !recommend) {
      // The legend: what a first reader of this table needs (docs/step1-naive.md
      // shows the table measured on a CPU and on a GPU).
      std::cout
          << "\nmedian ms, min ms: the middle and the fastest of the timed launches (kernel time, from\n"
             "  OpenCL's profiling events). Compare medians; a wide gap between the two means a busy machine.\n"
             "GFLOP/s, GB/s: 2 F^2 flops per output pixel; one read of the padded input, one write of the output.\n"
             "x serial: the serial loop's time over the row's (above 1: faster than the loop).\n"
             "x prev: a step's first variant over the variant of the step before that it builds on, a later\n"
             "  variant over its own step's first.\n"
             "% limit: the row's share of the limit that binds at this filter width, the measured FMA rate (fma)\n"
             "  or copy bandwidth (copy) above; data a cache holds can pass 100 (docs/step1-naive.md, Measured).\n"
             "max abs err: the largest difference from the exact answer (the serial reference, summed in double).\n";
      if (!facts.is_gpu)
        std::cout << "On a CPU the serial loop runs on one core and the steps on all of them, yet the early steps can\n"
                     "  be slower: PoCL runs their work-items one at a time without SIMD (tools/pocl-vectorizer.sh 1\n"
                     "  says whether it vectorised), each with its own index and range arithmetic, step 3 also copies\n"
                     "  a tile and waits at a barrier, and on a shared machine the second core may be busy. The later\n"
                     "  steps give the compiler constant widths, vectors and blocks.\n";
    }
    std::ostream& out = csv ? std::cerr : std::cout;
    if (!fastest.step.empty()) {
      out << (csv ? "tour: " : "\n") << (recommend ? "Use " : "Fastest for ") << (recommend ? fastest.step : filter.name)
          << (recommend ? " for " + filter.name + " on this device" : " here: " + fastest.step) << " ("
          << fastest.variant << ", " << fastest.median_ms << " ms"
          << (origin[fastest.step].empty() ? "" : ", " + origin[fastest.step]) << ")\n";
    }
    if (recommend && !untuned.empty()) {
      out << (csv ? "tour: " : "") << "Not tuned here for this filter, so run at their documented defaults (tune, then "
          << "ask again):\n";
      for (const auto& [name, command] : untuned) out << (csv ? "tour: " : "") << "  " << command << "\n";
    }
    return failures == 0 ? 0 : 1;
  });
}
