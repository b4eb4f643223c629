#include "common/cli.hpp"

#include <iostream>
#include <memory>
#include <new>
#include <sstream>

#include "common/errors.hpp"
#include "common/filter.hpp"
#include "common/image.hpp"
#include "common/parse.hpp"
#include "common/program.hpp"
#include "common/reference.hpp"
#include "common/report.hpp"
#include "common/watchdog.hpp"

namespace conv {

namespace {

std::string format_seconds(double s) {
  std::ostringstream text;
  text << s;
  return text.str();
}

}  // namespace

void add_device_options(CLI::App& app, DeviceOptions& o) {
  app.add_flag_callback(
      "--list-devices",
      [] {
        print_device_list(std::cout);
        throw CLI::Success();  // parse_command_line: exit 0
      },
      "List OpenCL platforms and devices, then exit");
  app.add_option("--platform", o.choice.platform,
                 "Platform by index or name substring (default: any)")
      ->envname("CLCONV_PLATFORM");
  app.add_option("--device", o.choice.device,
                 "Device by index (global, or within --platform) or name substring "
                 "(default: the first GPU, else the first device)")
      ->envname("CLCONV_DEVICE");
  app.add_option("--device-type", o.choice.type, "cpu, gpu or all")
      ->envname("CLCONV_DEVICE_TYPE")
      ->capture_default_str();
}

void add_problem_options(CLI::App& app, ProblemOptions& o) {
  app.add_option("--image", o.image,
                 "Input: a PNG/JPEG/BMP/PGM/PPM/PFM file, or synthetic:WxH[:SEED]")
      ->capture_default_str();
  app.add_option("--filter", o.filter, "Filter: " + filter_spec_help())->capture_default_str();
  app.add_option("--border", o.border, "Border mode: zero or clamp")->capture_default_str();
}

int guarded_main(const std::string& program, const std::function<int()>& body) {
  try {
    return body();
  } catch (const UsageError& e) {
    std::cerr << program << ": " << e.what() << " (see --help)\n";
    return 2;
  } catch (const BuildError& e) {
    std::cerr << program << ": " << e.what() << "\n";
    return 1;
  } catch (const cl::Error& e) {
    std::cerr << program << ": OpenCL call " << e.what() << " failed: " << cl_error_name(e.err())
              << "\n";
    return 1;
  } catch (const std::bad_alloc&) {
    std::cerr << program << ": out of host memory\n";
    return 1;
  } catch (const std::exception& e) {
    std::cerr << program << ": " << e.what() << "\n";
    return 1;
  } catch (...) {
    std::cerr << program << ": unknown error\n";
    return 1;
  }
}

int parse_command_line(CLI::App& app, int argc, char** argv) {
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    std::cout << app.help();
    return 0;
  } catch (const CLI::CallForAllHelp&) {
    std::cout << app.help("", CLI::AppFormatMode::All);
    return 0;
  } catch (const CLI::Success&) {  // --list-devices, after printing the list
    return 0;
  } catch (const CLI::ParseError& e) {
    std::cerr << app.get_name() << ": " << e.what() << " (see --help)\n";
    return 2;
  }
  return -1;
}

int step_main(int argc, char** argv, Step& step) {
  return guarded_main(step.name(), [&]() -> int {
    CLI::App app(step.name() + ": " + step.summary(), step.name());
    DeviceOptions device_options;
    ProblemOptions problem_options;
    std::string wg = "auto", output, kernel_file;
    std::map<std::string, std::string> values;  // the step's options, by name
    int reps = 10;
    bool verify = false, csv = false;
    add_problem_options(app, problem_options);
    for (const auto& o : step.options()) {
      auto* opt = app.add_option("--" + o.name, values[o.name], o.help);
      opt->default_str(o.default_value);
      if (!o.choices.empty()) opt->check(CLI::IsMember(o.choices));
    }
    app.add_option("--wg", wg, "Work-group shape WxH, or auto (16x16 unless the step tunes its own)")
        ->capture_default_str();
    app.add_option("--reps", reps, "Timed launches (after one warm-up)")
        ->capture_default_str()
        ->check(CLI::Range(1, 100000));
    app.add_option("--output", output, "Write the result: FILE.png (clamped to [0,1]) or FILE.pfm (exact)");
    app.add_flag("--verify", verify,
                 "Compare with the serial reference; print the error; exit 1 if over tolerance");
    app.add_flag("--csv", csv, "Print CSV (one header row) instead of a table");
    app.add_option("--kernel", kernel_file, "Build this OpenCL file instead of the embedded kernel");
    double timeout = -1;
    app.add_option("--timeout", timeout,
                   "End the run after this many seconds, for a kernel that never returns "
                   "(0: no limit; default: 60 with --kernel, else none)")
        ->check(CLI::Range(0.0, 1e6));
    add_device_options(app, device_options);
    if (int rc = parse_command_line(app, argc, argv); rc >= 0) return rc;

    // Every check of the command line first (exit 2), then the files, and
    // only then the device.
    RunOptions run;
    if (wg != "auto") std::tie(run.wg_x, run.wg_y) = parse_size(wg, "--wg", 1 << 14);
    for (const auto& [name, value] : values)
      if (!value.empty()) run.values[name] = value;
    step.check_options(run);
    const Border border = parse_border(problem_options.border);
    if (!output.empty()) check_output_path(output);  // also: can it be written?
    if (!kernel_file.empty()) {
      if (!step.builds_kernel_file(run))
        throw UsageError("--kernel " + kernel_file + ": " + step.name() + " " + step.describe(run) +
                         " builds a kernel of its own, not the one --kernel replaces");
      run.kernel_source = read_text_file(kernel_file);
      run.kernel_label = kernel_file;
    }
    if (timeout < 0) timeout = kernel_file.empty() ? 0 : kDefaultKernelTimeout;
    const Filter filter = parse_filter_spec(problem_options.filter);
    const Image image = load_image_spec(problem_options.image);
    const Problem problem = make_problem(image, filter, border);

    RunResult result;
    std::unique_ptr<DeviceContext> device;
    {
      const Watchdog watchdog(step.name(), timeout,
                              "stopped after --timeout " + format_seconds(timeout) +
                                  " s: the kernel did not finish (does it loop forever?)");
      device = std::make_unique<DeviceContext>(device_options.choice);
      if (wg == "auto") std::tie(run.wg_x, run.wg_y) = step.default_work_group(device->facts(), filter.width);
      result = run_step(step, *device, problem, run, reps);
    }

    Row row = problem_row(device->facts(), step.name(), step.describe(run), problem);
    row.wg = result.work_group;
    fill_metrics(row, result.stats, static_cast<long long>(problem.padded.pixels.size()), result.planes);

    Comparison cmp;
    if (verify) {
      cmp = step.compare(result.output, problem, reference_correlate(problem.padded, filter));
      row.max_abs_err = cmp.max_abs_err;
      row.max_rel_err = cmp.max_rel_err;
    }
    if (csv) {
      write_csv_header(std::cout);
      write_csv_row(std::cout, row);
      if (!result.note.empty()) std::cerr << step.name() << ": " << result.note << "\n";
    } else {
      std::cout << step.name() << " on " << device->facts().name << " (" << device->facts().platform
                << ", driver " << device->facts().driver << "): " << image.width << "x"
                << image.height << ", filter " << filter.name << " (" << filter.width << "x"
                << filter.width << "), border " << row.border << "\n";
      if (!result.note.empty()) std::cout << result.note << "\n";
      write_table(std::cout, {row}, false);
    }
    if (verify) {
      std::cerr << "verify: " << cmp.describe() << (cmp.passed() ? " - OK" : " - FAILED")
                << (!cmp.passed() && !output.empty() ? " (" + output + " not written)" : "") << "\n";
      if (!cmp.passed()) return 1;
    }
    if (!output.empty()) save_image(output, result.output);  // only a result that passed
    return 0;
  });
}

}  // namespace conv
