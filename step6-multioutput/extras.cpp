// The filter bank of step 6 (extras.hpp).
#include "step6-multioutput/extras.hpp"

#include <algorithm>
#include <cmath>
#include <iostream>
#include <limits>
#include <random>

#include "common/errors.hpp"
#include "common/parse.hpp"
#include "common/step.hpp"
#include "step6-multioutput/tuning.hpp"

namespace conv {

void add_extras_options(CLI::App& app, ExtrasOptions& o, const std::string& verify_help) {
  app.add_option("--bank", o.banks, "Bank sizes to run, from 1, 2, 4, 8, 16")->capture_default_str();
  app.add_option("--reps", o.reps, "Timed launches (after one warm-up)")->capture_default_str()
      ->check(CLI::Range(1, 100000));
  app.add_flag("--verify", o.verify, verify_help);
  app.add_flag("--csv", o.csv, "Print CSV (one header row) instead of a table");
  app.add_flag("--no-limits", o.no_limits,
               "Do not measure the device's limits (the % of limit column stays empty); for simulators");
  add_device_options(app, o.device);
}

DeviceLimits extras_limits(DeviceContext& device, const ExtrasOptions& options,
                           const std::string& program) {
  if (options.no_limits) return {};
  return device_limits(device, false, [&](const std::string& line) {
    if (!options.csv) std::cerr << program << ": " << line << "\n";
  });
}

namespace {

void check_bank(int bank) {
  if (!valid_bank_size(bank))
    throw UsageError("a filter bank holds 1, 2, 4, 8 or 16 filters (OpenCL's vector widths), not " +
                     std::to_string(bank));
}

}  // namespace

RunOptions bank_options(int bank, std::pair<int, int> block, int wg_x, int wg_y) {
  check_bank(bank);
  const auto [bx, by] = block.first > 0 ? block : default_bank_block(bank);
  RunOptions options;
  options.values = {{"bank", std::to_string(bank)},
                    {"block", std::to_string(bx) + "x" + std::to_string(by)},
                    {"weights", "constant"},
                    {"shape", "rows"},
                    {"copy", "rows"},
                    {"tile", "on"}};
  options.wg_x = wg_x;
  options.wg_y = wg_y;
  return options;
}

Stats time_separate_passes(DeviceContext& device, const Problem& problem, int bank, std::pair<int, int> block,
                           int wg_x, int wg_y, int reps) {
  auto step = make_step6_multioutput();
  const RunOptions one = bank_options(1, block, wg_x, wg_y);
  Problem pass = problem;
  Stats total;
  for (const Filter& filter : step6_bank_filters(problem.filter, bank)) {
    pass.filter = filter;
    // No warm-up beyond the checked first run: every pass builds the same
    // program (the weights are an argument), and the first built it.
    const Stats s = run_step(*step, device, pass, one, reps, 0).stats;
    total.median_ms += s.median_ms;
    total.min_ms += s.min_ms;
    total.mean_ms += s.mean_ms;
    total.reps = s.reps;
  }
  return total;
}

}  // namespace conv
