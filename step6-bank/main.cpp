// build/bin/step6-bank: step 6's filter bank, timed. For each bank size N,
// the filter random:F:SEED and N - 1 more (seeds SEED + 1 ...) in one pass
// of bank.cl, against N separate passes of step 6, each at its own default
// block (default_bank_block) unless --block sets one for both; the fused
// row's speedup_prev is separate / fused.
//   build/bin/step6-bank --filter-width 5 --bank 1,4,16 --verify
#include <algorithm>
#include <iostream>

#include "common/core/errors.hpp"
#include "common/machinery/cli.hpp"
#include "common/machinery/parse.hpp"
#include "common/machinery/report.hpp"
#include "step6-bank/bank.hpp"

using namespace conv;

int main(int argc, char** argv) {
  return guarded_main("step6-bank", [&]() -> int {
    CLI::App app("step6-bank: N filters in one pass of bank.cl (step 6's kernel with floatN weights and "
                 "sums) against N separate passes of step 6 (block 4x4 unless --block sets both); the "
                 "separate row's times are the sums of the passes' own, and both rows name the fused block",
                 "step6-bank");
    BankOptions o;
    std::string image_spec = "synthetic:2048x2048", border_text = "zero";
    std::string wg = "16x16", block_text;
    int width = 7;
    unsigned seed = 1;
    app.add_option("--image", image_spec, "Input: an image file, or synthetic:WxH[:SEED]")->capture_default_str();
    app.add_option("--border", border_text, "Border mode: zero or clamp")->capture_default_str();
    app.add_option("--filter-width", width, "F: every filter of the bank is F x F (random weights)")
        ->capture_default_str()->check(CLI::Range(1, 31));
    app.add_option("--seed", seed, "Seed of the first filter (the others: seed+1, ...)")->capture_default_str();
    app.add_option("--wg", wg, "Work-group shape WxH")->capture_default_str();
    app.add_option("--block", block_text, "Outputs per work-item WxH, W a multiple of 4 "
                                          "(default: 4x4 for banks of 1-2, 4x2 for 4, 4x1 for 8-16)");
    add_bank_options(app, o);
    if (int rc = parse_command_line(app, argc, argv); rc >= 0) return rc;
    const std::vector<int> banks = parse_bank_list(o.banks);
    auto [wg_x, wg_y] = parse_size(wg, "--wg", 1 << 14);
    std::pair<int, int> block{0, 0};
    if (!block_text.empty()) block = parse_size(block_text, "--block", 16);
    if (block.first % 4 != 0)
      throw UsageError("--block: the width must be a multiple of 4, not " + std::to_string(block.first));
    // Filter seeds run from --seed to --seed + BANK - 1, and a seed is at most 2^30.
    const int largest_bank = *std::max_element(banks.begin(), banks.end());
    if (seed < 1 || seed > (1u << 30) - (largest_bank - 1))
      throw UsageError("--seed: 1.." + std::to_string((1u << 30) - (largest_bank - 1)) + " with a bank of " +
                       std::to_string(largest_bank) + " (filters use seed .. seed + " +
                       std::to_string(largest_bank - 1) + "), not " + std::to_string(seed));
    const Border border = parse_border(border_text);
    const Image image = load_image_spec(image_spec);
    const Problem problem = make_problem(
        image, parse_filter_spec("random:" + std::to_string(width) + ":" + std::to_string(seed)), border);
    const Image& padded = problem.padded;

    DeviceContext device(o.device.choice);
    const DeviceLimits limits = bank_limits(device, o);
    std::vector<Row> rows;
    std::string failure;  // the first plane over tolerance
    for (int bank : banks) {
      if (!o.csv) std::cerr << "step6-bank: bank of " << bank << "...\n";
      const std::vector<Filter> filters = bank_filters(problem.filter, bank);
      const auto [bx, by] = block.first > 0 ? block : default_bank_block(bank);
      const std::string block_note = " block=" + std::to_string(bx) + "x" + std::to_string(by);
      const RunResult fused = run_bank(device, problem, filters, block, wg_x, wg_y, o.reps);
      const Stats separate = time_separate_passes(device, problem, filters, block, wg_x, wg_y, o.reps);

      const double outputs = static_cast<double>(image.width) * image.height;
      const double flops = 2.0 * width * width * outputs * bank;
      const double in_bytes = 4.0 * padded.pixels.size();
      auto make_row = [&](const std::string& variant, const Stats& stats, double bytes) {
        Row row;
        stamp(row, device.facts());
        row.step = "step6-bank";
        row.variant = variant + " bank=" + std::to_string(bank) + block_note;
        row.width = image.width;
        row.height = image.height;
        row.filter = "random:" + std::to_string(width) + ":" + std::to_string(seed);
        row.filter_width = width;
        row.border = border_name(border);
        row.wg = fused.work_group;
        row.reps = stats.reps;
        row.median_ms = stats.median_ms;
        row.min_ms = stats.min_ms;
        row.mean_ms = stats.mean_ms;
        row.gflops = flops / (stats.median_ms * 1e6);
        row.gbps = bytes / (stats.median_ms * 1e6);
        const RooflineShare share = roofline_share(limits, flops, bytes, stats.median_ms);
        if (!share.limit.empty()) {
          row.pct_limit = share.percent;
          row.limit = share.limit;
        }
        return row;
      };
      rows.push_back(make_row("separate", separate, bank * (in_bytes + 4.0 * outputs)));
      Row row = make_row("fused", fused.stats, in_bytes + 4.0 * outputs * bank);
      row.speedup_prev = separate.median_ms / fused.stats.median_ms;
      if (o.verify) {
        row.max_abs_err = row.max_rel_err = 0;
        const std::vector<Image> planes = split_planes(fused.output, bank);
        for (int k = 0; k < bank; ++k) {
          const Comparison cmp =
              compare_with_reference(planes[k], reference_correlate(padded, filters[k]), width);
          row.max_abs_err = std::max(row.max_abs_err, cmp.max_abs_err);
          row.max_rel_err = std::max(row.max_rel_err, cmp.max_rel_err);
          if (!cmp.passed() && failure.empty())
            failure = "bank of " + std::to_string(bank) + ", filter " + std::to_string(k) + ": " + cmp.describe();
        }
      }
      rows.push_back(row);
    }
    if (o.csv) {
      write_csv_header(std::cout);
      for (const auto& r : rows) write_csv_row(std::cout, r);
    } else {
      std::cout << "step6-bank on " << device.facts().name << ": " << image.width << "x" << image.height
                << ", " << width << "x" << width << " random filters; fused speedup = separate / fused\n";
      write_table(std::cout, rows, true);
    }
    if (!failure.empty()) {
      std::cerr << "step6-bank: verification failed: " << failure << "\n";
      return 1;
    }
    if (o.verify && !o.csv) std::cout << "verify: every plane within tolerance - OK\n";
    return 0;
  });
}
