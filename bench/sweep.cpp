// sweep: steps x variants x images x filters x work-groups, one CSV row per
// run, with the serial baseline and the device's measured limits beside
// them. Every experiment in docs/ is one sweep command (bench/experiments.sh).
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>

#include "common/cli.hpp"
#include "common/errors.hpp"
#include "common/limits.hpp"
#include "common/parse.hpp"
#include "common/reference.hpp"
#include "common/registry.hpp"
#include "common/report.hpp"

using namespace conv;

namespace {

// "box:1..32" -> box:1, box:2, ..., box:32 (also "random:3..9:7" keeps ":7").
std::vector<std::string> expand_filters(const std::string& text) {
  std::vector<std::string> out;
  for (const auto& spec : split_list(text)) {
    auto dots = spec.find("..");
    auto colon = spec.find(':');
    if (dots == std::string::npos || colon == std::string::npos || dots < colon) {
      out.push_back(spec);
      continue;
    }
    const std::string kind = spec.substr(0, colon + 1);
    const std::string rest = spec.substr(dots + 2);
    const auto tail_at = rest.find(':');
    const std::string tail = tail_at == std::string::npos ? "" : rest.substr(tail_at);
    const int from = parse_positive_int(spec.substr(colon + 1, dots - colon - 1), "--filters range", kMaxFilterWidth);
    const int to = parse_positive_int(rest.substr(0, tail_at), "--filters range", kMaxFilterWidth);
    if (to < from) throw UsageError("--filters: empty range in '" + spec + "'");
    for (int f = from; f <= to; ++f) out.push_back(kind + std::to_string(f) + tail);
  }
  return out;
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
    std::string steps_text, variants_text = "default", images_text = "2048x2048",
                filters_text = "motion45", wgs_text = "16x16", border_text = "zero", output;
    int reps = 10, serial_reps = 3;
    bool serial = false, no_check = false, reprobe = false;
    std::vector<std::string> set_texts;
    app.add_option("--steps", steps_text, "Steps by name or number, comma-separated (default: all)");
    app.add_option("--variants", variants_text,
                   "default (each step's first), all, or names, comma-separated")
        ->capture_default_str();
    app.add_option("--images", images_text,
                   "Images: WxH (synthetic), synthetic:WxH[:SEED] or files, comma-separated")
        ->capture_default_str();
    app.add_option("--filters", filters_text,
                   "Filter specs, comma-separated; kind:A..B expands to widths A to B")
        ->capture_default_str();
    app.add_option("--wgs", wgs_text, "Work-group shapes, comma-separated")->capture_default_str();
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
    app.add_option("--output", output, "Write the CSV here (default: standard output)");
    add_device_options(app, device_options);
    if (int rc = parse_command_line(app, argc, argv); rc >= 0) return rc;
    if (device_options.list) {
      print_device_list(std::cout);
      return 0;
    }

    std::vector<std::unique_ptr<Step>> steps;
    if (steps_text.empty())
      steps = all_steps();
    else
      for (const auto& s : split_list(steps_text)) steps.push_back(find_step(s));
    std::vector<std::pair<int, int>> wgs;
    for (const auto& w : split_list(wgs_text)) wgs.push_back(parse_size(w, "--wgs", 1 << 14));
    const auto filter_specs = expand_filters(filters_text);
    std::vector<Filter> filters;
    for (const auto& f : filter_specs) filters.push_back(parse_filter_spec(f));
    const Border border = parse_border(border_text);
    const auto image_items = split_list(images_text);
    for (auto& step : steps)
      if (variants_text != "default" && variants_text != "all")
        for (const auto& v : split_list(variants_text)) {
          RunOptions probe;
          probe.variant = v;
          step->variant(probe);  // unknown variant: usage error now, not later
        }
    std::vector<std::pair<std::string, std::vector<std::string>>> sets;
    for (const auto& text : set_texts) {
      const auto eq = text.find('=');
      if (eq == std::string::npos || eq == 0 || eq + 1 == text.size())
        throw UsageError("--set: expected NAME=V1,V2, got '" + text + "'");
      sets.push_back({text.substr(0, eq), split_list(text.substr(eq + 1))});
    }
    // Every combination of the --set values that this step has a setting for.
    auto settings_for = [&](const Step& step) {
      std::vector<std::map<std::string, std::string>> combos = {{}};
      for (const auto& [name, values] : sets) {
        bool has = false;
        for (const auto& st : step.settings()) has |= st.name == name;
        if (!has) continue;
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
    for (auto& step : steps)
      for (const auto& combo : settings_for(*step)) {
        RunOptions probe;
        probe.settings = combo;
        step->describe(probe);  // unknown values: usage error now
      }
    if (!output.empty() && output.size() > 4 && output.substr(output.size() - 4) != ".csv")
      throw UsageError("--output: '" + output + "' must end in .csv");

    DeviceContext device(device_options.choice);
    std::cerr << "sweep: " << device.facts().name << ": measuring the device limits...\n";
    const DeviceLimits limits = device_limits(device, reprobe);

    std::vector<Row> rows;
    int wrong = 0, done = 0;
    const int total = static_cast<int>(image_items.size() * filters.size() * wgs.size() * steps.size());
    for (const auto& item : image_items) {
      const Image image = load_image_spec(image_spec(item));
      for (const auto& filter : filters) {
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
        auto finish = [&](Row& row, const Stats& stats, const Image& out, double serial_ms,
                          const Step* step) {
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
          rows.push_back(row);
        }
        for (auto [wg_x, wg_y] : wgs) {
          double prev_ms = 0;
          for (auto& step : steps) {
            ++done;
            std::vector<std::string> variants = step->variants();
            if (variants_text == "default")
              variants.resize(1);
            else if (variants_text != "all")
              variants = split_list(variants_text);
            double first_ms = 0;
            for (const auto& variant : variants)
            for (const auto& combo : settings_for(*step)) {
              RunOptions options;
              options.variant = variant;
              options.settings = combo;
              options.wg_x = wg_x;
              options.wg_y = wg_y;
              std::cerr << "sweep: [" << done << "/" << total << "] " << step->name() << " "
                        << step->describe(options) << ", " << image.width << "x" << image.height << ", "
                        << filter.name << ", wg " << wg_x << "x" << wg_y << "\n";
              RunResult result;
              try {
                result = run_step(*step, device, problem, options, reps);
              } catch (const Error& e) {  // a limit refused it: note and go on
                std::cerr << "sweep: skipped: " << e.what() << "\n";
                continue;
              }
              Row row = row_for(step->name(), step->describe(options));
              row.wg = result.work_group;
              finish(row, result.stats, result.output, serial_ms, step.get());
              if (prev_ms > 0) row.speedup_prev = prev_ms / row.median_ms;
              if (first_ms == 0) first_ms = row.median_ms;
              rows.push_back(row);
            }
            if (first_ms > 0) prev_ms = first_ms;
          }
        }
      }
    }

    std::ostringstream csv;
    write_csv_header(csv);
    for (const auto& row : rows) write_csv_row(csv, row);
    if (output.empty()) {
      std::cout << csv.str();
    } else {
      const std::string text = csv.str();
      write_file_atomically(output, std::vector<std::uint8_t>(text.begin(), text.end()));
      std::cerr << "sweep: wrote " << rows.size() << " rows to " << output << "\n";
    }
    return wrong == 0 ? 0 : 1;
  });
}
