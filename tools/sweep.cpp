// sweep: steps x variants x images x filters x work-groups, one CSV row per
// run, with the serial baseline and the device's measured limits beside
// them. Every experiment in docs/ is one sweep command (bench/experiments.sh).
#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>

#include "common/core/program.hpp"
#include "common/machinery/cli.hpp"
#include "common/machinery/device_choice.hpp"
#include "common/machinery/files.hpp"
#include "common/machinery/guard.hpp"
#include "common/machinery/parse.hpp"
#include "common/machinery/program_cache.hpp"
#include "common/machinery/reference.hpp"
#include "common/machinery/registry.hpp"
#include "common/machinery/report.hpp"
#include "common/machinery/roofline.hpp"
#include "common/machinery/settings.hpp"

using namespace conv;

namespace {

// The most items a list option may hold (after ranges are expanded), and
// the most runs one sweep may make: more is a mistake, not an experiment
// (every docs/ experiment is under 20,000 runs), and its lists and their
// combinations would be built before the first run.
constexpr std::size_t kMaxListItems = 10000;
constexpr double kMaxRuns = 1000000;

// `items`, or UsageError naming `option` when there are too many.
std::vector<std::string> bounded(std::vector<std::string> items, const std::string& option) {
  if (items.size() > kMaxListItems)
    throw UsageError(option + ": " + std::to_string(items.size()) + " items, more than the " +
                     std::to_string(kMaxListItems) + " a list may hold");
  return items;
}

// "600x400" is shorthand for "synthetic:600x400".
std::string image_spec(const std::string& item) {
  if (item.find(':') == std::string::npos && item.find_first_of("xX") != std::string::npos &&
      item.find('.') == std::string::npos && item.find('/') == std::string::npos)
    return "synthetic:" + item;
  return item;
}

}  // namespace

int main(int argc, char** argv) {
  return guarded_main("sweep", [&]() -> int {
    CLI::App app(
        "sweep: run steps x variants x images x filters x work-groups and write one CSV "
        "(the columns every tool shares) with the serial baseline and the device's limits",
        "sweep");
    DeviceOptions device_options;
    // The lists: split at commas after parsing (list_items), so that an
    // empty item is refused, not dropped.
    std::vector<std::string> step_names, variant_names = {"default"}, image_items = {"2048x2048"},
                             filter_items = {"motion45"}, wg_items = {"16x16"};
    std::string border_text = "zero", output, kernel_file;
    int reps = 10, serial_reps = 3;
    bool serial = false, no_check = false, reprobe = false;
    std::vector<std::string> set_texts;
    app.add_option("--steps", step_names, "Steps by name or number, comma-separated (default: all)");
    app.add_option("--variants", variant_names,
                   "default (each step's first), all, or names, comma-separated: each step runs "
                   "the names it has, and default stands for its first (default,fixed)")
        ->capture_default_str();
    app.add_option("--images", image_items,
                   "Images: WxH (synthetic), synthetic:WxH[:SEED] or files, comma-separated")
        ->capture_default_str();
    app.add_option("--filters", filter_items,
                   "Filter specs, comma-separated; kind:A..B expands to widths A to B")
        ->capture_default_str();
    app.add_option("--wgs", wg_items,
                   "Work-group shapes, comma-separated; auto: each step's default (step 6 tunes its own)")
        ->capture_default_str();
    app.add_option("--set", set_texts,
                   "A step's own option and the values to sweep, NAME=V1,V2 (for example "
                   "aligned=on,off or block=4x4,8x8); steps without it ignore it");
    app.add_option("--border", border_text, "zero or clamp")->capture_default_str();
    app.add_option("--reps", reps, "Timed launches per run")->capture_default_str()->check(CLI::Range(1, 100000));
    app.add_flag("--serial", serial, "Also time the serial baseline per image and filter");
    app.add_option("--serial-reps", serial_reps, "Runs of the serial baseline")
        ->capture_default_str()
        ->check(CLI::Range(1, 1000));
    app.add_flag("--no-check", no_check, "Skip the comparison with the serial reference");
    app.add_flag("--reprobe", reprobe, "Measure the device limits again");
    app.add_option("--output", output, "Write the CSV here (default: standard output)")->check(file_name());
    app.add_option("--kernel", kernel_file,
                   "Build this OpenCL file instead of the step's embedded kernel (one step in "
                   "--steps; rows name the file in their variant)");
    add_device_options(app, device_options);
    if (int rc = parse_command_line(app, argc, argv); rc >= 0) return rc;
    step_names = bounded(list_items(step_names, "--steps"), "--steps");
    variant_names = bounded(list_items(variant_names, "--variants"), "--variants");
    image_items = bounded(list_items(image_items, "--images"), "--images");
    filter_items = bounded(list_items(filter_items, "--filters"), "--filters");
    wg_items = bounded(list_items(wg_items, "--wgs"), "--wgs");
    if (set_texts.size() > kMaxListItems) bounded(set_texts, "--set");

    std::vector<std::unique_ptr<Step>> steps;
    if (step_names.empty())
      steps = all_steps();
    else
      for (const auto& s : step_names) steps.push_back(find_step(s));
    std::string kernel_source;
    if (!kernel_file.empty()) {
      if (steps.size() != 1)
        throw UsageError("--kernel " + kernel_file + ": name the one step it replaces with --steps N");
      kernel_source = read_text_file(kernel_file);
      std::cerr << "sweep: building " << kernel_file << " instead of " << steps.front()->name()
                << "'s embedded kernel\n";
    }
    std::vector<std::pair<int, int>> wgs;
    for (const auto& w : wg_items)  // auto: {0, 0}, each step's own default
      wgs.push_back(w == "auto" ? std::pair<int, int>{0, 0} : parse_size(w, "--wgs", 1 << 14));
    // Each filter is checked now and made again when its turn comes: only
    // one is held at a time (a random:127 is 64 KiB, and there may be 10,000).
    const auto filter_specs = bounded(expand_filters(filter_items), "--filters");
    for (const auto& f : filter_specs) parse_filter_spec(f);
    const Border border = parse_border(border_text);
    // The variants of `step` that --variants selects, in the order listed.
    auto variants_for = [&](const Step& step) {
      const auto all = step.variants();
      if (variant_names == std::vector<std::string>{"all"}) return all;
      std::vector<std::string> chosen;
      for (const auto& v : variant_names) {
        const std::string name = v == "default" ? all.front() : v;
        if (std::find(all.begin(), all.end(), name) != all.end() &&
            std::find(chosen.begin(), chosen.end(), name) == chosen.end())
          chosen.push_back(name);
      }
      return chosen;
    };
    if (variant_names != std::vector<std::string>{"all"})
      for (const auto& v : variant_names) {
        bool known = v == "default";
        for (auto& step : steps) {
          const auto all = step->variants();
          known |= std::find(all.begin(), all.end(), v) != all.end();
        }
        if (!known) throw UsageError("--variants: no selected step has a variant '" + v + "'");
      }
    std::vector<std::pair<std::string, std::vector<std::string>>> sets;
    std::vector<std::string> set_names;
    std::map<std::string, std::string> set_lists;  // a name given twice must say the same
    for (const auto& text : set_texts) {
      const auto [name, values] = split_setting(text, "--set", "NAME=V1,V2");
      add_setting(set_lists, name, values);
      if (std::find(set_names.begin(), set_names.end(), name) != set_names.end()) continue;
      sets.push_back({name, bounded(split_list(values, "--set " + name), "--set " + name)});
      set_names.push_back(name);
    }
    // A name is refused when no variant that will run uses it.
    std::vector<StepVariants> runs;
    for (const auto& step : steps) runs.push_back({step.get(), variants_for(*step)});
    check_setting_names(runs, set_names, "see --variants");
    // Every combination of the --set values that this variant of the step
    // uses (a variant that ignores a setting runs once without it).
    auto settings_for = [&](const Step& step, const std::string& variant) {
      std::vector<std::map<std::string, std::string>> combos = {{}};
      for (const auto& [name, values] : sets) {
        if (name == "variant" || !step.uses(name, variant)) continue;
        std::vector<std::map<std::string, std::string>> next;
        for (const auto& combo : combos)
          for (const auto& v : values) {
            auto c = combo;
            c[name] = v;
            next.push_back(c);
          }
        combos = next;
      }
      return combos;
    };
    // How many runs the sweep will make, counted before any list of them
    // is built: --set values multiply.
    double planned = 0;
    for (auto& step : steps)
      for (const auto& variant : variants_for(*step)) {
        double combos = 1;
        for (const auto& [name, values] : sets)
          if (name != "variant" && step->uses(name, variant)) combos *= static_cast<double>(values.size());
        planned += combos;
      }
    planned *= static_cast<double>(image_items.size()) * static_cast<double>(filter_specs.size()) *
               static_cast<double>(wgs.size());
    if (planned > kMaxRuns) {
      char count[32];
      std::snprintf(count, sizeof count, "%.0f", planned);
      throw UsageError(std::string("this sweep would make ") + count + " runs (images x filters x --wgs x "
                       "steps, variants and --set values), more than " + std::to_string(static_cast<long>(kMaxRuns)) +
                       "; split it into smaller sweeps");
    }
    // One run's options: its variant and --set values, and the --kernel file.
    // (At RunOptions' work-group: the run sets its own; a --wgs shape a step
    // cannot use is skipped with a note when its turn comes, as a device
    // limit is.)
    auto options_of = [&](const std::string& variant, const std::map<std::string, std::string>& combo) {
      RunOptions options;
      options.values = combo;
      options.values["variant"] = variant;
      options.kernel_source = kernel_source;
      options.kernel_label = kernel_file;
      return options;
    };
    // Every run the sweep will make, checked now (common/core/step.hpp): a value
    // a step cannot take is a usage error before the first job.
    for (auto& step : steps)
      for (const auto& variant : variants_for(*step))
      for (const auto& combo : settings_for(*step, variant)) {
        const RunOptions probe = options_of(variant, combo);
        step->check_options(probe);
        if (!kernel_file.empty() && !step->builds_kernel_file(probe))
          throw UsageError("--kernel " + kernel_file + ": " + step->name() + " " + step->describe(probe) +
                           " builds a kernel of its own, not the one --kernel replaces");
      }
    // Every input and the output before the first job: a bad image or an
    // unwritable path must not throw away hours of finished rows.
    // Each image is checked now (a file read and decoded, a synthetic size
    // parsed) and loaded again when its turn comes: one is held at a time,
    // for a list may name many of the largest size.
    if (!output.empty()) check_output_path(output, {".csv"});
    for (const auto& item : image_items) check_image_spec(image_spec(item));

    DeviceContext device(device_options.choice);
    // Every run's settings against the device, before the first job: a
    // setting a step can refuse only once it knows the device's defaults
    // (step 8: a --method and a setting that method runs without) stops the
    // sweep here, not when its turn comes.
    for (const auto& filter_spec : filter_specs) {
      const Filter filter = parse_filter_spec(filter_spec);
      for (auto& step : steps)
        for (const auto& variant : variants_for(*step))
          for (const auto& combo : settings_for(*step, variant))
            step->default_work_group(device.facts(), filter, options_of(variant, combo));
    }

    const DeviceLimits limits = device_limits(device, reprobe, [&](const std::string& line) {
      std::cerr << "sweep: " << device.facts().name << ": " << line << "\n";  // only when it measures
    });

    // Rows go out as they finish: to standard output, or to OUTPUT.partial,
    // renamed to OUTPUT at the end (a failure leaves the finished rows there).
    // A symbolic link at OUTPUT is written through (common/machinery/image_files.hpp).
    const std::string partial = output.empty() ? "" : partial_path(output);
    std::ofstream partial_file;
    if (!output.empty()) {
      partial_file.open(partial, std::ios::trunc);
      if (!partial_file) throw Error(partial + ": cannot write: " + std::strerror(errno));
    }
    std::ostream& csv = output.empty() ? std::cout : partial_file;
    // Each write checked as it is flushed, with the reason (a full disk).
    auto check_written = [&] {
      if (!csv)
        throw Error((output.empty() ? "standard output" : partial) + ": write failed" +
                    (errno ? std::string(": ") + std::strerror(errno) : ""));
    };
    errno = 0;
    write_csv_header(csv);
    csv.flush();
    check_written();
    std::size_t written = 0;
    auto emit = [&](const Row& row) {
      errno = 0;
      write_csv_row(csv, row);
      csv.flush();
      check_written();
      ++written;
    };

    int wrong = 0, done = 0, timed = 0;
    const int total = static_cast<int>(image_items.size() * filter_specs.size() * wgs.size() * steps.size());
    try {
      for (const auto& item : image_items) {
        const Image image = load_image_spec(image_spec(item));
        for (const auto& filter_spec : filter_specs) {
          const Filter filter = parse_filter_spec(filter_spec);
          const Problem problem = make_problem(image, filter, border);
          Reference reference;
          if (!no_check) reference = reference_correlate(problem.padded, filter);
          const double outputs = static_cast<double>(problem.out_width()) * problem.out_height();
          const double flops = 2.0 * filter.width * filter.width * outputs;
          const double bytes = 4.0 * (static_cast<double>(problem.padded.pixels.size()) + outputs);
          auto row_for = [&](const std::string& step, const std::string& variant) {
            return problem_row(device.facts(), step, variant, problem);
          };
          // `step` checks the output with its own error bound; null: the serial loop.
          auto finish = [&](Row& row, const Stats& stats, const Image& out, double serial_ms, const Step* step) {
            fill_metrics(row, stats, static_cast<long long>(problem.padded.pixels.size()));
            const auto share = roofline_share(limits, flops, bytes, stats.median_ms);
            row.pct_limit = share.percent;
            row.limit = share.limit;
            if (serial_ms > 0) row.speedup_serial = serial_ms / stats.median_ms;
            if (!no_check) {
              const auto cmp = step ? step->compare(out, problem, reference)
                                    : compare_with_reference(out, reference, filter.width);
              row.max_abs_err = cmp.max_abs_err;
              row.max_rel_err = cmp.max_rel_err;
              if (!cmp.passed()) {
                std::cerr << "sweep: WRONG result: " << row.step << " " << row.variant << ": "
                          << cmp.describe() << "\n";
                ++wrong;
              }
            }
          };
          double serial_ms = 0;
          if (serial) {
            Image out;
            const Stats s = time_host([&] { out = serial_correlate(problem.padded, filter); }, serial_reps);
            serial_ms = s.median_ms;
            Row row = row_for("serial", "float-loop");
            finish(row, s, out, serial_ms, nullptr);
            emit(row);
          }
          for (auto [wg_x, wg_y] : wgs) {
            // "speedup_prev", as the tour has it: a step's first variant over the
            // previous step's variant it builds on (Step::builds_on; the first by
            // default), a later variant over its own step's first.
            std::map<std::string, double> prev_step_ms;  // variant -> first run's median
            std::string prev_first;
            for (auto& step : steps) {
              ++done;
              const std::vector<std::string> variants = variants_for(*step);
              std::map<std::string, double> this_step_ms;
              const std::string base = step->builds_on().empty() ? prev_first : step->builds_on();
              const double prev_ms = prev_step_ms.count(base) ? prev_step_ms[base] : 0;
              for (const auto& variant : variants)
              for (const auto& combo : settings_for(*step, variant)) {
                RunOptions options = options_of(variant, combo);
                std::tie(options.wg_x, options.wg_y) =
                    wg_x > 0 ? std::pair<int, int>{wg_x, wg_y}
                             : step->default_work_group(device.facts(), filter, options);
                std::cerr << "sweep: [" << done << "/" << total << "] " << step->name() << " "
                          << step->describe(options) << ", " << image.width << "x" << image.height << ", "
                          << filter.name << ", wg " << options.wg_x << "x" << options.wg_y << "\n";
                RunResult result;
                try {
                  result = run_step(*step, device, problem, options, reps);
                } catch (const KernelFault& e) {  // a wrong result, not a limit
                  std::cerr << "sweep: WRONG result: " << step->name() << " " << step->describe(options)
                            << (kernel_file.empty() ? "" : " kernel=" + kernel_file) << ": " << e.what() << "\n";
                  ++wrong;
                  continue;
                } catch (const Error& e) {  // a limit refused it: note and go on
                  std::cerr << "sweep: skipped: " << e.what() << "\n";
                  continue;
                }
                ++timed;
                Row row = row_for(step->name(), step->describe(options) +
                                                    (kernel_file.empty() ? "" : " kernel=" + kernel_file));
                row.wg = result.work_group;
                finish(row, result.stats, result.output, serial_ms, step.get());
                const std::string first = step->variants().front();
                const double over = variant != first && this_step_ms.count(first) ? this_step_ms[first] : prev_ms;
                if (over > 0) row.speedup_prev = over / row.median_ms;
                this_step_ms.emplace(variant, row.median_ms);
                emit(row);
              }
              prev_step_ms = this_step_ms;
              prev_first = step->variants().front();
            }
          }
        }
      }
    } catch (const std::exception& e) {
      if (output.empty() || written == 0) throw;
      throw Error(std::string(e.what()) + " (the " + std::to_string(written) +
                  " rows finished before it are in " + partial + ")");
    }
    if (timed == 0 && wrong == 0) {  // a table of nothing is no result
      if (!output.empty()) {
        partial_file.close();
        std::remove(partial.c_str());
      }
      throw Error("no run was timed: every one was skipped (the reasons are above)");
    }
    if (!output.empty()) {
      partial_file.close();
      if (!partial_file || std::rename(partial.c_str(), output_target(output).c_str()) != 0)
        throw Error(output + ": cannot write: " + std::strerror(errno) + " (the rows are in " +
                    partial + ")");
      std::cerr << "sweep: wrote " << written << " rows to " << output << "\n";
    }
    return wrong == 0 ? 0 : 1;
  });
}
