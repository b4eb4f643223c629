// Step 6's filter bank (docs/step6-multioutput.md): BANK filters of one
// width applied in one pass of bank.cl (step 6's kernel with floatBANK
// weights and sums), against BANK separate passes of step 6 with one
// filter each. build/bin/step6-bank runs both. (The 3D volume is
// step6-volume/.)
#pragma once
#include <string>
#include <utility>
#include <vector>

#include "common/machinery/cli.hpp"
#include "common/machinery/device_choice.hpp"
#include "common/machinery/guard.hpp"
#include "common/machinery/program_cache.hpp"
#include "common/machinery/reference.hpp"
#include "common/machinery/report.hpp"
#include "common/machinery/roofline.hpp"
#include "common/machinery/settings.hpp"

namespace conv {

// What step6-bank takes on its command line besides the image and filters.
struct BankOptions {
  DeviceOptions device;
  std::string banks = "1,2,4,8,16";
  int reps = 10;
  bool verify = false, csv = false, no_limits = false;
};
void add_bank_options(CLI::App& app, BankOptions& options);

// The device's measured limits, or none with --no-limits (for simulators).
DeviceLimits bank_limits(DeviceContext& device, const BankOptions& options);

// The block of a bank of `bank` filters unless one is given: it shrinks as
// the bank grows (4x4 for 1 and 2 filters, 4x2 for 4, 4x1 for 8 and 16), so
// that the BLOCK_X * BLOCK_Y * BANK sums stay about 32 registers. UsageError
// for a bank size bank.cl does not take (1, 2, 4, 8, 16).
std::pair<int, int> default_bank_block(int bank);

// The bank's filters: filter 0 is `filter` itself. For random:F:S
// (random:F is seed 1) filter k is random:F:(S + k); for any other filter,
// filter k is `filter` with every weight times k + 1. Each differs from
// the others (unless every weight is 0), so a plane written to the wrong
// place, or twice, fails the comparison with its reference.
std::vector<Filter> bank_filters(const Filter& filter, int bank);

// bank.cl's launch (launcher.cpp): the problem's padded image correlated
// with every filter of `filters` in one pass, blocks of `block` (0x0: the
// default), work-groups of wg_x x wg_y. read() returns the planes, filter
// k's under filter k - 1's.
Launch prepare_bank(DeviceContext& device, const Problem& problem, const std::vector<Filter>& filters,
                    std::pair<int, int> block, int wg_x, int wg_y);

// The bank in one pass, through run_launch: its first run checked for
// untouched pixels and the planes' size, then `reps` timed.
RunResult run_bank(DeviceContext& device, const Problem& problem, const std::vector<Filter>& filters,
                   std::pair<int, int> block, int wg_x, int wg_y, int reps);

// The bank's planes (run_bank's output) against each filter's exact
// answer: the worst plane's errors, its bad pixels summed over the planes,
// the worst pixel placed in the planes' image.
Comparison compare_bank(const Image& planes, const Problem& problem, const std::vector<Filter>& filters);

// The same filters as separate passes of step 6 (block 4x4 unless `block`
// is given), each through run_step. The statistics are sums over the
// passes (median_ms: the sum of the passes' medians), so they time all the
// filters, as the fused pass's do.
Stats time_separate_passes(DeviceContext& device, const Problem& problem, const std::vector<Filter>& filters,
                           std::pair<int, int> block, int wg_x, int wg_y, int reps);

}  // namespace conv
