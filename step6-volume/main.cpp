// build/bin/step6-volume: step 6 in 3D. A uchar volume correlated with BANK
// random F x F x F filters at once, by the naive kernel and by the
// register-blocked one (volume.cl, launcher.cpp); GFLOP/s against the
// device's measured FMA peak (pct_limit, limit "fma").
//   build/bin/step6-volume --size 96 --bank 1,4,16 --verify
#include <array>
#include <iostream>

#include "common/core/errors.hpp"
#include "common/machinery/cli.hpp"
#include "common/machinery/parse.hpp"
#include "common/machinery/platform/files.hpp"
#include "common/machinery/report.hpp"
#include "common/machinery/roofline.hpp"
#include "step6-volume/volume.hpp"

using namespace conv;

namespace {

// "256" or "256x128x64", for the option `what` (--size, --wg).
std::array<int, 3> parse_volume_size(const std::string& text, const std::string& what) {
  if (text.find('x') == std::string::npos) {
    const int n = parse_positive_int(text, what, 2048);
    return {n, n, n};
  }
  const auto last = text.rfind('x');
  if (text.find('x') == last) throw UsageError(what + ": expected N or WxHxD, got '" + text + "'");
  auto [w, h] = parse_size(text.substr(0, last), what, 2048);
  return {w, h, parse_positive_int(text.substr(last + 1), what, 2048)};
}

}  // namespace

int main(int argc, char** argv) {
  return guarded_main("step6-volume", [&]() -> int {
    CLI::App app("step6-volume: a uchar volume and a bank of F x F x F filters, naive against register-blocked",
                 "step6-volume");
    DeviceOptions device_options;
    std::string size_text = "256", variants_text = "naive,blocked", wg = "32x4x1", banks_text = "1,2,4,8,16";
    int width = 7, block_x = 8, reps = 5;
    unsigned seed = 1;
    bool verify = false, csv = false, no_limits = false;
    app.add_option("--size", size_text, "Volume: N (N x N x N) or WxHxD, seeded synthetic uchar data")
        ->capture_default_str();
    app.add_option("--filter-width", width, "F: every filter is F x F x F (random weights)")
        ->capture_default_str()->check(CLI::Range(1, 31));
    app.add_option("--variant", variants_text, "Kernels to run: naive, blocked, or both (naive,blocked)")
        ->capture_default_str();
    app.add_option("--block-x", block_x, "Outputs per work-item along x (blocked)")->capture_default_str()
        ->check(CLI::Range(1, 32));
    app.add_option("--wg", wg, "Work-group shape WxHxD")->capture_default_str();
    app.add_option("--seed", seed, "Seed of the volume and of the first filter")->capture_default_str();
    app.add_option("--bank", banks_text, "Bank sizes to run, from 1, 2, 4, 8, 16")->capture_default_str();
    app.add_option("--reps", reps, "Timed launches (after one warm-up)")->capture_default_str()
        ->check(CLI::Range(1, 100000));
    app.add_flag("--verify", verify, "Check every output against the serial reference (slow for large volumes)");
    app.add_flag("--csv", csv, "Print CSV (one header row) instead of a table");
    app.add_flag("--no-limits", no_limits,
                 "Do not measure the device's limits (the % of limit column stays empty); for simulators");
    add_device_options(app, device_options);
    if (int rc = parse_command_line(app, argc, argv); rc >= 0) return rc;
    const auto size = parse_volume_size(size_text, "--size");
    const auto work_group = parse_volume_size(wg, "--wg");
    const std::vector<int> banks = parse_bank_list(banks_text);
    const std::vector<std::string> variants = split_list(variants_text, "--variant");
    for (const auto& v : variants)
      if (v != "naive" && v != "blocked") throw UsageError("--variant: naive or blocked, not '" + v + "'");
    DeviceContext device(device_options.choice);
    // Every run's buffers against the device's limits before the volume is
    // generated (a 1024^3 volume takes half a minute to make).
    const double host_bytes = static_cast<double>(physical_memory_bytes());  // 0: not known
    for (int bank : banks)
      for (const auto& v : variants) {
        const VolumeLayout l =
            check_volume_fits(device, size[0], size[1], size[2], width, bank, v == "blocked" ? block_x : 1,
                              work_group[0], work_group[1], work_group[2]);
        // The host holds the volume and the outputs (and, with --verify, a
        // reference of two doubles per output).
        const double need = static_cast<double>(l.in_bytes) + l.out_bytes * (verify ? 5.0 : 1.0);
        if (host_bytes > 0 && need > host_bytes)
          throw Error("the volume and its outputs need " + std::to_string(static_cast<long long>(need)) +
                      " bytes of host memory, more than this machine's " +
                      std::to_string(static_cast<long long>(host_bytes)));
      }
    const Volume volume = synthetic_volume(size[0], size[1], size[2], seed);
    // The device's measured limits, or none with --no-limits (for simulators).
    DeviceLimits limits;
    if (!no_limits)
      limits = device_limits(device, false, [&](const std::string& line) {
        if (!csv) std::cerr << "step6-volume: " << line << "\n";
      });
    std::vector<Row> rows;
    std::string failure;
    for (int bank : banks) {
      const auto filters = random_filter_bank_3d(bank, width, seed);
      std::vector<Reference> refs;
      double naive_ms = 0;
      for (const auto& variant : variants) {
        if (!csv) std::cerr << "step6-volume: " << variant << ", bank of " << bank << "...\n";
        const VolumeRun run = run_volume(device, volume, filters, variant, block_x, work_group[0],
                                         work_group[1], work_group[2], reps);
        const double outputs = static_cast<double>(run.out_width) * run.out_height * run.out_depth;
        Row row;
        stamp(row, device.facts());
        row.step = "step6-volume";
        row.variant = variant + " bank=" + std::to_string(bank) +
                      (variant == "blocked" ? " block_x=" + std::to_string(block_x) : "") +
                      " depth=" + std::to_string(run.out_depth);
        row.width = run.out_width;
        row.height = run.out_height;
        row.filter = "random3d:" + std::to_string(width);
        row.filter_width = width;
        row.border = "valid";
        row.wg = run.work_group;
        row.reps = run.stats.reps;
        row.median_ms = run.stats.median_ms;
        row.min_ms = run.stats.min_ms;
        row.mean_ms = run.stats.mean_ms;
        const double flops = 2.0 * width * width * width * outputs * bank;
        row.gflops = flops / (run.stats.median_ms * 1e6);
        row.gbps = (static_cast<double>(volume.voxels.size()) + 4.0 * outputs * bank) /
                   (run.stats.median_ms * 1e6);
        // The share of the measured FMA peak (the multi-dimensional post's utilization).
        if (limits.fma_gflops > 0) {
          row.pct_limit = 100.0 * row.gflops / limits.fma_gflops;
          row.limit = "fma";
        }
        if (variant == "naive") naive_ms = run.stats.median_ms;
        else if (naive_ms > 0) row.speedup_prev = naive_ms / run.stats.median_ms;
        if (verify) {
          if (refs.empty())
            for (const auto& f : filters) refs.push_back(volume_reference(volume, f));
          row.max_abs_err = row.max_rel_err = 0;
          for (int k = 0; k < bank; ++k) {
            const Comparison cmp = compare_with_reference_terms(
                run.outputs[k], refs[k], static_cast<long long>(width) * width * width);
            row.max_abs_err = std::max(row.max_abs_err, cmp.max_abs_err);
            row.max_rel_err = std::max(row.max_rel_err, cmp.max_rel_err);
            if (!cmp.passed() && failure.empty())
              failure = variant + ", bank of " + std::to_string(bank) + ", filter " + std::to_string(k) +
                        ": " + cmp.describe();
          }
        }
        rows.push_back(row);
      }
    }
    if (csv) {
      write_csv_header(std::cout);
      for (const auto& r : rows) write_csv_row(std::cout, r);
    } else {
      std::cout << "step6-volume on " << device.facts().name << ": " << size[0] << "x" << size[1] << "x"
                << size[2] << " uchar, " << width << "^3 random filters";
      if (limits.fma_gflops > 0) std::cout << "; measured FMA peak " << limits.fma_gflops << " GFLOP/s";
      std::cout << "\n";
      write_table(std::cout, rows, true);
    }
    if (!failure.empty()) {
      std::cerr << "step6-volume: verification failed: " << failure << "\n";
      return 1;
    }
    if (verify && !csv) std::cout << "verify: every output within tolerance - OK\n";
    return 0;
  });
}
