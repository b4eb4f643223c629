// Step 6's filter bank (bank.hpp): its filters, blocks, the fused run and
// the separate passes.
#include "step6-bank/bank.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <iostream>

#include "common/machinery/device_choice.hpp"
#include "common/machinery/guard.hpp"
#include "common/machinery/parse.hpp"
#include "common/machinery/program_cache.hpp"
#include "common/machinery/reference.hpp"
#include "common/machinery/report.hpp"
#include "common/machinery/settings.hpp"

namespace conv {

std::unique_ptr<Step> make_step6_multioutput();  // step6-multioutput/launcher.cpp

void add_bank_options(CLI::App& app, BankOptions& o) {
  app.add_option("--bank", o.banks, "Bank sizes to run, from 1, 2, 4, 8, 16")->capture_default_str();
  app.add_option("--reps", o.reps, "Timed launches (after one warm-up)")->capture_default_str()
      ->check(CLI::Range(1, 100000));
  app.add_flag("--verify", o.verify,
               "Check every output plane against the serial reference; exit 1 if over tolerance");
  app.add_flag("--csv", o.csv, "Print CSV (one header row) instead of a table");
  app.add_flag("--no-limits", o.no_limits,
               "Do not measure the device's limits (the % of limit column stays empty); for simulators");
  add_device_options(app, o.device);
}

DeviceLimits bank_limits(DeviceContext& device, const BankOptions& options) {
  if (options.no_limits) return {};
  return device_limits(device, false, [&](const std::string& line) {
    if (!options.csv) std::cerr << "step6-bank: " << line << "\n";
  });
}

std::pair<int, int> default_bank_block(int bank) {
  if (!valid_bank_size(bank))
    throw UsageError("a filter bank holds 1, 2, 4, 8 or 16 filters (OpenCL's vector widths), not " +
                     std::to_string(bank));
  if (bank <= 2) return {4, 4};
  if (bank == 4) return {4, 2};
  return {4, 1};
}

namespace {

// The seed of a filter named random:F or random:F:S, when F is its width;
// 0 for every other filter.
std::uint32_t random_seed(const Filter& filter) {
  const std::string prefix = "random:" + std::to_string(filter.width);
  if (filter.name == prefix) return 1;
  if (filter.name.rfind(prefix + ":", 0) != 0) return 0;
  const std::string seed = filter.name.substr(prefix.size() + 1);
  if (seed.empty() || seed.find_first_not_of("0123456789") != std::string::npos || seed.size() > 10) return 0;
  return static_cast<std::uint32_t>(std::stoul(seed));
}

}  // namespace

std::vector<Filter> bank_filters(const Filter& filter, int bank) {
  default_bank_block(bank);  // UsageError for a size bank.cl does not take
  std::vector<Filter> filters = {filter};
  const std::uint32_t seed = random_seed(filter);
  for (int k = 1; k < bank; ++k) {
    if (seed > 0) {
      const std::uint64_t next = std::uint64_t{seed} + k;
      if (next > (1u << 30))
        throw UsageError("a bank of " + std::to_string(bank) + " with " + filter.name +
                         ": the bank's filters take the seeds " + std::to_string(seed) + " to " +
                         std::to_string(seed + bank - 1) + ", and a seed is at most " +
                         std::to_string(1u << 30));
      filters.push_back(parse_filter_spec("random:" + std::to_string(filter.width) + ":" + std::to_string(next)));
    } else {
      Filter scaled = filter;
      scaled.name = std::to_string(k + 1) + "*" + filter.name;
      for (float& w : scaled.weights) w *= static_cast<float>(k + 1);
      filters.push_back(std::move(scaled));
    }
  }
  return filters;
}

RunResult run_bank(DeviceContext& device, const Problem& problem, const std::vector<Filter>& filters,
                   std::pair<int, int> block, int wg_x, int wg_y, int reps) {
  check_work_group_shape(device, wg_x, wg_y);
  Launch launch = prepare_bank(device, problem, filters, block, wg_x, wg_y);
  RunResult result;
  result.stats = run_launch(launch, reps, 1, [&] {
    result.output = launch.read();
    const int planes = static_cast<int>(filters.size());
    if (result.output.width != problem.out_width() || result.output.height != problem.out_height() * planes)
      throw Error("step6-bank: the launch read back " + std::to_string(result.output.width) + "x" +
                  std::to_string(result.output.height) + ", not " + std::to_string(problem.out_width()) + "x" +
                  std::to_string(problem.out_height()) + " x " + std::to_string(planes) + " planes");
    check_result(result.output);
  });
  result.work_group = launch.work_group;
  return result;
}

Comparison compare_bank(const Image& output, const Problem& problem, const std::vector<Filter>& filters) {
  const int planes = static_cast<int>(filters.size());
  const int height = problem.out_height();
  Comparison all;
  double worst = -1;
  const std::vector<Image> split = split_planes(output, planes);
  for (int k = 0; k < planes; ++k) {
    const Comparison c = compare_with_reference(split[static_cast<std::size_t>(k)],
                                                reference_correlate(problem.padded, filters[k]),
                                                problem.filter.width);
    all.max_abs_err = std::max(all.max_abs_err, c.max_abs_err);
    all.max_rel_err = std::max(all.max_rel_err, c.max_rel_err);
    all.bad_pixels += c.bad_pixels;
    const double score = c.bad_pixels > 0 ? INFINITY : c.max_rel_err;
    if (score > worst && c.worst_x >= 0) {
      worst = score;
      all.worst_x = c.worst_x;
      all.worst_y = k * height + c.worst_y;
    }
  }
  return all;
}

Stats time_separate_passes(DeviceContext& device, const Problem& problem, const std::vector<Filter>& filters,
                           std::pair<int, int> block, int wg_x, int wg_y, int reps) {
  auto step = make_step6_multioutput();
  RunOptions one;
  const auto [bx, by] = block.first > 0 ? block : default_bank_block(1);
  one.values = {{"block", std::to_string(bx) + "x" + std::to_string(by)}};
  one.wg_x = wg_x;
  one.wg_y = wg_y;
  Problem pass = problem;
  Stats total;
  for (const Filter& filter : filters) {
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
