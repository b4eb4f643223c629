// The tour: the serial baseline and every registered step on one image and
// filter, side by side, with speedups and the share of the device's measured
// limits. Every step in common/registry.cpp is run here.
#include <iostream>
#include <map>

#include "common/cli.hpp"
#include "common/errors.hpp"
#include "common/roofline.hpp"
#include "common/parse.hpp"
#include "common/reference.hpp"
#include "common/registry.hpp"
#include "common/report.hpp"

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
    std::string wg = "16x16";
    int reps = 10, serial_reps = 3;
    bool csv = false, reprobe = false, all_variants = false;
    add_problem_options(app, problem_options);
    app.add_option("--wg", wg, "Work-group shape WxH for every step")->capture_default_str();
    app.add_option("--reps", reps, "Timed launches per step")
        ->capture_default_str()
        ->check(CLI::Range(1, 100000));
    app.add_option("--serial-reps", serial_reps, "Timed runs of the serial baseline")
        ->capture_default_str()
        ->check(CLI::Range(1, 1000));
    app.add_flag("--all-variants", all_variants,
                 "One row per variant, not only each step's default (and the variant the next step "
                 "builds on, which x prev needs)");
    app.add_flag("--reprobe", reprobe, "Measure the device limits again instead of using the cache");
    app.add_flag("--csv", csv, "Print CSV (one header row) instead of a table");
    add_device_options(app, device_options);
    if (int rc = parse_command_line(app, argc, argv); rc >= 0) return rc;

    RunOptions run;
    std::tie(run.wg_x, run.wg_y) = parse_size(wg, "--wg", 1 << 14);
    const Border border = parse_border(problem_options.border);
    const Filter filter = parse_filter_spec(problem_options.filter);
    const Image image = load_image_spec(problem_options.image);
    const Problem problem = make_problem(image, filter, border);
    DeviceContext device(device_options.choice);
    const auto& facts = device.facts();

    std::cerr << "tour: " << facts.name << ", " << image.width << "x" << image.height
              << ", filter " << filter.name << "\n";
    std::cerr << "tour: measuring the device limits (cached after the first run)...\n";
    const DeviceLimits limits = device_limits(device, reprobe);
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
    Image serial_out;
    const Stats serial = time_host([&] { serial_out = serial_correlate(problem.padded, filter); },
                                   serial_reps);
    Row serial_row = base_row("serial", "float-loop");
    finish_row(serial_row, serial, serial_out, serial.median_ms, NAN, nullptr);
    serial_row.wg = "";
    rows.push_back(serial_row);

    // "x prev" isolates one idea: a step's first variant over the variant of
    // the step before that it builds on (Step::builds_on), a later variant
    // over its own step's first. Without --all-variants the tour still runs
    // each variant a later step builds on.
    int failures = 0;
    Row fastest;  // the quickest correct step: the one to use for this filter
    auto steps = all_steps();
    std::map<std::string, double> measured_ms;  // "step variant" -> median
    std::string baseline_key = "serial";
    measured_ms[baseline_key] = serial.median_ms;
    for (std::size_t i = 0; i < steps.size(); ++i) {
      auto& step = steps[i];
      const auto all = step->variants();
      const std::string next_builds_on = i + 1 < steps.size() ? steps[i + 1]->builds_on() : "";
      std::vector<std::string> variants = all;
      if (!all_variants) {
        variants = {all.front()};
        if (!next_builds_on.empty() && next_builds_on != all.front()) variants.push_back(next_builds_on);
      }
      for (const auto& variant : variants) {
        std::cerr << "tour: " << step->name() << (all.size() > 1 ? " " + variant : "") << "...\n";
        const std::string key = step->name() + " " + variant;
        const std::string compared_with =
            variant == all.front() ? baseline_key : step->name() + " " + all.front();
        const double prev_ms = measured_ms.count(compared_with) ? measured_ms[compared_with] : NAN;
        RunOptions options = run;
        options.values["variant"] = variant;
        try {
          RunResult result = run_step(*step, device, problem, options, reps);
          Row row = base_row(step->name(), variant);
          row.wg = result.work_group;
          auto cmp = finish_row(row, result.stats, result.output, serial.median_ms, prev_ms,
                                step.get());
          if (!result.note.empty()) std::cerr << "tour: " << step->name() << ": " << result.note << "\n";
          if (cmp.passed() && (fastest.step.empty() || row.median_ms < fastest.median_ms))
            fastest = row;
          if (!cmp.passed()) {
            std::cerr << "tour: " << step->name() << " " << variant << " is WRONG: "
                      << cmp.describe() << "\n";
            ++failures;
          }
          rows.push_back(row);
          measured_ms[key] = row.median_ms;
        } catch (const UsageError&) {
          throw;
        } catch (const std::exception& e) {
          std::cerr << "tour: " << step->name() << " " << variant << " failed: " << e.what() << "\n";
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
                << border_name(border) << ", work-group " << wg << ", median of " << reps
                << " launches\n\n";
      write_table(std::cout, rows, true);
      std::cout << "\nx prev: a step's first variant over the variant of the step before that it "
                   "builds on, a later variant over its own step's first.\n";
    }
    if (!fastest.step.empty())
      (csv ? std::cerr : std::cout) << (csv ? "tour: " : "\n") << "Fastest for " << filter.name
                                    << " here: " << fastest.step << " (" << fastest.variant << ", "
                                    << fastest.median_ms << " ms)\n";
    return failures == 0 ? 0 : 1;
  });
}
