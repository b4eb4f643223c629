#include "common/machinery/step_main.hpp"

#include <cstring>
#include <iostream>
#include <map>
#include <memory>

#include "common/core/run_step.hpp"
#include "common/machinery/cli.hpp"
#include "common/core/errors.hpp"
#include "common/machinery/filter_specs.hpp"
#include "common/machinery/image_files.hpp"
#include "common/machinery/parse.hpp"
#include "common/machinery/files.hpp"
#include "common/machinery/reference.hpp"
#include "common/machinery/report.hpp"
#include "common/machinery/supervisor.hpp"
#include "common/machinery/tuner.hpp"
#include "common/machinery/watchdog.hpp"

namespace conv {
namespace {

// What a step's command line asks for.
struct StepCommand {
  DeviceOptions device;
  ProblemOptions problem;
  std::map<std::string, std::string> values;  // the step's options, by name
  std::string wg = "auto", output, kernel_file;
  int reps = 10;
  bool verify = false, csv = false;
  double timeout = -1;
  Border border = Border::zero;  // parsed from problem.border
};

void add_step_options(CLI::App& app, const Step& step, StepCommand& c) {
  add_problem_options(app, c.problem);
  for (const auto& o : step.options()) {
    auto* opt = app.add_option("--" + o.name, c.values[o.name], o.help);
    opt->default_str(o.default_value);
    if (!o.choices.empty()) opt->check(CLI::IsMember(o.choices));
  }
  app.add_option("--wg", c.wg, "Work-group shape WxH, or auto (16x16 unless the step tunes its own)")
      ->capture_default_str();
  app.add_option("--reps", c.reps, "Timed launches (after one warm-up)")
      ->capture_default_str()
      ->check(CLI::Range(1, 100000));
  app.add_option("--output", c.output, "Write the result: FILE.png (clamped to [0,1]) or FILE.pfm (exact)")
      ->check(file_name());
  app.add_flag("--verify", c.verify,
               "Compare with the serial reference; print the error; exit 1 if over tolerance");
  app.add_flag("--csv", c.csv, "Print CSV (one header row) instead of a table");
  app.add_option("--kernel", c.kernel_file, "Build this OpenCL file instead of the embedded kernel");
  app.add_option("--timeout", c.timeout,
                 "End the run after this many seconds, for a kernel that never returns "
                 "(0: no limit; default: 60 with --kernel, else none)")
      ->check(seconds_limit());
  add_device_options(app, c.device);
}

// Every check of the command line (exit 2), then the --output folder and
// the --kernel file, before any image is loaded or device opened.
RunOptions check_step_command(const Step& step, StepCommand& c) {
  RunOptions run;
  if (c.wg != "auto") std::tie(run.wg_x, run.wg_y) = parse_size(c.wg, "--wg", 1 << 14);
  for (const auto& [name, value] : c.values)
    if (!value.empty()) run.values[name] = value;
  step.check_options(run);
  c.border = parse_border(c.problem.border);
  if (!c.output.empty()) check_output_path(c.output);  // also: can it be written?
  if (!c.kernel_file.empty()) {
    if (!step.builds_kernel_file(run))
      throw UsageError("--kernel " + c.kernel_file + ": " + step.name() + " " + step.describe(run) +
                       " builds a kernel of its own, not the one --kernel replaces");
    run.kernel_source = read_text_file(c.kernel_file);
    run.kernel_label = c.kernel_file;
  }
  if (c.timeout < 0) c.timeout = c.kernel_file.empty() ? 0 : kDefaultKernelTimeout;
  return run;
}

// The run's report: a table (or CSV) row with the timings, the step's note.
void print_report(const Step& step, const DeviceFacts& facts, const Problem& problem,
                  const RunOptions& run, const RunResult& result, const Comparison* cmp, bool csv) {
  Row row = problem_row(facts, step.name(), step.describe(run), problem);
  row.wg = result.work_group;
  fill_metrics(row, result.stats, static_cast<long long>(problem.padded.pixels.size()));
  if (cmp) {
    row.max_abs_err = cmp->max_abs_err;
    row.max_rel_err = cmp->max_rel_err;
  }
  if (csv) {
    write_csv_header(std::cout);
    write_csv_row(std::cout, row);
    if (!result.note.empty()) std::cerr << step.name() << ": " << result.note << "\n";
    return;
  }
  const Filter& filter = problem.filter;
  std::cout << step.name() << " on " << facts.name << " (" << facts.platform << ", driver "
            << facts.driver << "): " << problem.padded.width - filter.width + 1 << "x"
            << problem.padded.height - filter.width + 1 << ", filter " << filter.name << " ("
            << filter.width << "x" << filter.width << "), border " << row.border << "\n";
  if (!result.note.empty()) std::cout << result.note << "\n";
  write_table(std::cout, {row}, false);
}

// The device, the run (common/core/run_step.cpp) under --timeout's watch, the
// report, --verify and --output.
int run_and_report(Step& step, const StepCommand& c, RunOptions& run, const Problem& problem) {
  RunResult result;
  std::unique_ptr<DeviceContext> device;
  {
    const Watchdog watchdog(step.name(), c.timeout,
                            "stopped after --timeout " + format_seconds(c.timeout) +
                                " s: the kernel did not finish (does it loop forever?)",
                            "stopped after --timeout " + format_seconds(c.timeout) +
                                " s while the kernel was being built: the OpenCL compiler did not finish");
    device = std::make_unique<DeviceContext>(c.device.choice);
    if (c.wg == "auto")
      std::tie(run.wg_x, run.wg_y) = step.default_work_group(device->facts(), problem.filter, run);
    result = run_step(step, *device, problem, run, c.reps);
  }

  Comparison cmp;
  if (c.verify) {
    // The serial sum can take a while on a large image: say so first.
    const double sums = static_cast<double>(problem.out_width()) * problem.out_height() * problem.filter.width *
                        problem.filter.width;
    if (sums > 1e9)
      std::cerr << step.name() << ": --verify: the serial reference, " << static_cast<long long>(sums / 1e9)
                << " billion multiply-adds on one core...\n";
    cmp = step.compare(result.output, problem, reference_correlate(problem.padded, problem.filter));
  }
  print_report(step, device->facts(), problem, run, result, c.verify ? &cmp : nullptr, c.csv);
  if (c.verify) {
    std::cerr << "verify: " << cmp.describe() << (cmp.passed() ? " - OK" : " - FAILED")
              << (!cmp.passed() && !c.output.empty() ? " (" + c.output + " not written)" : "") << "\n";
    if (!cmp.passed()) return 1;
  }
  if (!c.output.empty()) save_image(c.output, result.output);  // only a result that passed
  return 0;
}

// A tunable step (steps 7, 8 and 10: a Tunable beside its Step) has a
// tuning mode: true when the command line asks for it with --tune.
bool tuning_mode(int argc, char** argv, const Step& step) {
  if (!dynamic_cast<const Tunable*>(&step)) return false;
  for (int i = 1; i < argc; ++i)
    if (std::strcmp(argv[i], "--tune") == 0) return true;
  return false;
}

// What closes a tunable step's --help: its tuning mode, and what it
// searches; "" for a step that has none.
std::string tuning_footer(const Step& step) {
  const auto* tunable = dynamic_cast<const Tunable*>(&step);
  if (!tunable) return "";
  const std::string name = step.name();
  std::string searched;
  for (const TuneParameter& p : tunable->tune_parameters()) searched += p.name + ", ";
  return "Tuning mode: " + name + " --tune [--filters LIST] [--budget S] [--small] [--no-store]\n"
         "  searches this device's best " + searched + "work-group per filter\n"
         "  and stores the winners, which later runs use; " + name + " --tune --help describes each option.";
}

}  // namespace

// A step's executable: parse and check the command line, load the image
// and the filter, run the step on the device, report, verify, save; with
// --tune, tune a tunable step (common/machinery/tuner.hpp) instead.
int step_main(int argc, char** argv, Step& step) {
  if (tuning_mode(argc, argv, step)) return tune_step_main(argc, argv, step);
  return guarded_main(step.name(), [&]() -> int {
    // An option of the tuning mode alone, given without --tune: say so,
    // rather than CLI11's "not expected".
    if (dynamic_cast<const Tunable*>(&step))
      for (int i = 1; i < argc; ++i)
        for (const char* tuning_only : {"--budget", "--filters", "--filter-widths", "--small", "--no-store"})
          if (std::strcmp(argv[i], tuning_only) == 0)
            throw UsageError(std::string(tuning_only) + ": an option of the tuning mode; add --tune");
    CLI::App app(step.name() + ": " + step.summary(), step.name());
    app.footer(tuning_footer(step));
    StepCommand c;
    add_step_options(app, step, c);
    if (int rc = parse_command_line(app, argc, argv); rc >= 0) return rc;
    RunOptions run = check_step_command(step, c);
    const Filter filter = parse_filter_spec(c.problem.filter);
    const Problem problem = make_problem(load_image_spec(c.problem.image), filter, c.border);
    // With --kernel, the rest in a child process, so that a kernel that
    // ends the process by a signal is reported in one line (common/machinery/supervisor.hpp).
    return run_supervised(step.name(), c.kernel_file, [&] { return run_and_report(step, c, run, problem); });
  });
}

}  // namespace conv
