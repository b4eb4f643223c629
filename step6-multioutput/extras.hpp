// Step 6's filter bank (docs/step6-multioutput.md): BANK filters of one
// width applied in one pass (bank.cl), against BANK separate passes of the
// same kernel with one filter. Its tests check it against the serial
// reference like the steps. (The 3D volume is step6-volume/.)
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "common/cli.hpp"
#include "common/device.hpp"
#include "common/filter.hpp"
#include "common/image.hpp"
#include "common/roofline.hpp"
#include "common/reference.hpp"
#include "common/timing.hpp"

namespace conv {

// The bank sizes the kernels take: OpenCL's vector widths.
bool valid_bank_size(int bank);

// "1,4,16" -> {1, 4, 16}; UsageError naming --bank for anything else.
std::vector<int> parse_bank_list(const std::string& text);

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

// ---- the filter bank (2D) -----------------------------------------------

// BANK random filters of width F (seeds seed, seed + 1, ...).
std::vector<Filter> random_filter_bank(int bank, int width, std::uint32_t seed);

// Outputs per work-item when --block is not given: the block shrinks as the
// bank grows, so that BLOCK_X * BLOCK_Y * BANK sums stay about 32 registers.
std::pair<int, int> default_bank_block(int bank);

struct BankRun {
  std::vector<Image> outputs;  // one plane per filter, from the first launch
  Stats stats;                 // of the timed launches (all filters at once)
  std::string work_group;
};

// Runs bank.cl over `padded` (padded for the filters' width) with every
// filter at once. The output buffer is poisoned with NaN before the first
// launch, whose result is returned.
BankRun run_bank(DeviceContext& device, const Image& padded, const std::vector<Filter>& filters,
                 int wg_x, int wg_y, std::pair<int, int> block, int reps);

// The same filters as `filters.size()` separate passes of bank.cl with one
// filter each: one timed sample is all of them, first start to last end.
Stats time_separate_passes(DeviceContext& device, const Image& padded,
                           const std::vector<Filter>& filters, int wg_x, int wg_y,
                           std::pair<int, int> block, int reps);

}  // namespace conv
