// tools/tune: every tunable step tuned for one device in one command (the
// same tuner and store as each step's own --tune; docs/step7-tuned.md).
// Steps 7, 8 and 10 over their filters, then the histogram over its image.
#include <iostream>
#include <set>

#include "common/machinery/cli.hpp"
#include "common/machinery/device_choice.hpp"
#include "common/machinery/filter_specs.hpp"
#include "common/machinery/guard.hpp"
#include "common/machinery/image_files.hpp"
#include "common/machinery/parse.hpp"
#include "common/machinery/registry.hpp"
#include "common/machinery/tuner.hpp"
#include "histogram/tuning.hpp"

using namespace conv;

int main(int argc, char** argv) {
  return guarded_main("tune", [&]() -> int {
    CLI::App app("tune: tunes every tunable step for this device in one command (steps 7, 8 and 10 over their "
                 "filters, the histogram over its image), with the tuner and store each step's own --tune uses; "
                 "later runs of the steps, the tour and tour --recommend use the winners",
                 "tune");
    std::vector<std::string> step_items, filter_items;
    TuneSettings settings;
    std::string histogram_image = "synthetic:2048x2048";
    bool no_store = false;
    DeviceOptions device_options;
    app.add_option("--steps", step_items,
                   "Which to tune, comma-separated: 7, 8, 10 (or their names) and histogram (default: all)");
    app.add_option("--filters", filter_items,
                   "Filter specs for steps 7, 8 and 10 (kind:A..B expands), in place of each step's own list");
    app.add_option("--image", settings.image_spec, "The image steps 7, 8 and 10 are timed on")
        ->capture_default_str();
    app.add_option("--histogram-image", histogram_image, "The image the histogram is timed on")
        ->capture_default_str();
    app.add_option("--budget", settings.budget_s, "Seconds of search per filter (and for the histogram)")
        ->capture_default_str()
        ->check(seconds_limit(86400));
    app.add_option("--reps", settings.reps, "Timed launches per candidate")->capture_default_str()->check(CLI::Range(1, 1000));
    app.add_flag("--small", settings.small, "Small spaces: a quick look");
    app.add_flag("--no-store", no_store, "Print the winners, store nothing");
    add_device_options(app, device_options);
    if (int rc = parse_command_line(app, argc, argv); rc >= 0) return rc;
    settings.store = !no_store;

    // What to tune, checked before any work.
    std::vector<std::unique_ptr<Step>> steps;
    bool histogram = step_items.empty();
    const std::vector<std::string> items = list_items(step_items, "--steps");
    std::set<std::string> seen;
    for (auto& step : all_steps()) {
      if (!dynamic_cast<const Tunable*>(step.get())) continue;
      bool wanted = items.empty();
      for (const auto& item : items)
        wanted |= item == step->name() || item == step->name().substr(4, step->name().find('-') - 4);
      if (wanted) seen.insert(step->name()), steps.push_back(std::move(step));
    }
    for (const auto& item : items) {
      if (item == "histogram") {
        histogram = true;
        continue;
      }
      bool known = false;
      for (const auto& step : steps)
        known |= item == step->name() || item == step->name().substr(4, step->name().find('-') - 4);
      if (!known) throw UsageError("--steps: '" + item + "' is not a tunable step (7, 8, 10 or histogram)");
    }
    const std::vector<std::string> filters = expand_filters(list_items(filter_items, "--filters"));
    for (const auto& f : filters) parse_filter_spec(f);
    if (!steps.empty()) load_image_spec(settings.image_spec);
    if (histogram) load_image_spec(histogram_image);

    DeviceContext device(device_options.choice);
    std::cerr << "tune: " << device.facts().name << " (driver " << device.facts().driver << ")\n";
    std::vector<std::string> verdicts;
    int wrong = 0;
    for (auto& step : steps) {
      const auto* tunable = dynamic_cast<const Tunable*>(step.get());
      const std::vector<std::string> specs = filters.empty() ? split_list(tunable->tune_filters(), "--filters") : filters;
      for (const auto& spec : specs) {
        const SearchOutcome o = tune_filter(*step, device, spec, settings);
        wrong += static_cast<int>(o.wrong);
        verdicts.push_back(step->name() + " " + o.verdict);
      }
    }
    if (histogram) {
      const SearchOutcome o = histogram::tune(device, histogram_image, settings);
      wrong += static_cast<int>(o.wrong);
      verdicts.push_back("histogram " + o.verdict);
    }
    std::cout << "Tuned on " << device.facts().name << " (driver " << device.facts().driver << "):\n";
    for (const auto& v : verdicts) std::cout << "  " << v << "\n";
    if (settings.store && !tune_store_path().empty()) std::cout << "Stored in " << tune_store_path() << "\n";
    if (wrong > 0) {
      std::cerr << "tune: " << wrong << " configuration(s) gave a WRONG result\n";
      return 1;
    }
    return 0;
  });
}
