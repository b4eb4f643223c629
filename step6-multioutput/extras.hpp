// Step 6's filter bank (docs/step6-multioutput.md): step 6's --bank, BANK
// filters of one width applied in one pass (bank.cl), against BANK separate
// passes with one filter each: the driver build/bin/step6-bank runs both.
// (The 3D volume is step6-volume/.)
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "common/cli.hpp"
#include "common/parse.hpp"  // valid_bank_size, parse_bank_list
#include "common/device.hpp"
#include "common/filter.hpp"
#include "common/image.hpp"
#include "common/roofline.hpp"
#include "common/reference.hpp"
#include "common/step.hpp"
#include "common/timing.hpp"

namespace conv {

// What step6-bank takes on its command line besides the image and filters.
struct ExtrasOptions {
  DeviceOptions device;
  std::string banks = "1,2,4,8,16";
  int reps = 10;
  bool verify = false, csv = false, no_limits = false;
};
void add_extras_options(CLI::App& app, ExtrasOptions& options, const std::string& verify_help);

// The device's measured limits, or none with --no-limits (for simulators).
DeviceLimits extras_limits(DeviceContext& device, const ExtrasOptions& options,
                           const std::string& program);

// ---- the filter bank (2D): step 6's --bank --------------------------------
// Step 6 applies a bank itself (--bank N: the problem's filter and N - 1
// more, step6_bank_filters in tuning.hpp, in one pass of bank.cl);
// step6-bank times that against N separate passes.

// Step 6's options as step6-bank runs a bank of `bank` filters: --bank,
// --block (default_bank_block unless `block` is given), and the one shape
// of loops bank.cl has (weights in constant memory, the rows shape and
// copy), so that with --bank 1 convolve.cl runs what bank.cl widens.
RunOptions bank_options(int bank, std::pair<int, int> block, int wg_x, int wg_y);


// A bank of `bank` filters (step6_bank_filters(problem.filter, bank)) as
// separate passes: step 6 with bank_options(1, block, wg_x, wg_y), at the
// block of a bank of one (4x4) unless `block` is given, once for each
// filter, each through run_step (its first run checked for untouched
// pixels, then `reps` timed). The statistics are sums over the passes
// (median_ms: the sum of the passes' medians), so they time all the
// filters, as the fused pass's do.
Stats time_separate_passes(DeviceContext& device, const Problem& problem, int bank, std::pair<int, int> block,
                           int wg_x, int wg_y, int reps);

}  // namespace conv
