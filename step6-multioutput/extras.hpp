// Step 6's two extensions (docs/step6-multioutput.md):
//  - the filter bank: step 6's --bank, BANK filters of one width applied in
//    one pass (bank.cl), against BANK separate passes with one filter each;
//  - the 3D volume: a uchar volume and BANK F x F x F filters (volume.cl),
//    the naive kernel against the register-blocked one.
// Each comes with its serial reference, so the tests check it like the steps.
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
#include "common/step.hpp"
#include "common/timing.hpp"

namespace conv {

// The bank sizes the kernels take: OpenCL's vector widths.
bool valid_bank_size(int bank);

// "1,4,16" -> {1, 4, 16}; UsageError naming --bank for anything else.
std::vector<int> parse_bank_list(const std::string& text);

// What step6-bank and step6-volume share on their command lines.
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

// The planes of a bank's output, which step 6 returns one under another.
std::vector<Image> split_planes(const Image& stacked, int planes);

// A bank of `bank` filters (step6_bank_filters(problem.filter, bank)) as
// separate passes: step 6 with bank_options(1, block, wg_x, wg_y), at the
// block of a bank of one (4x4) unless `block` is given, once for each
// filter, each through run_step (its first run checked for untouched
// pixels, then `reps` timed). The statistics are sums over the passes
// (median_ms: the sum of the passes' medians), so they time all the
// filters, as the fused pass's do.
Stats time_separate_passes(DeviceContext& device, const Problem& problem, int bank, std::pair<int, int> block,
                           int wg_x, int wg_y, int reps);

// ---- the 3D volume --------------------------------------------------------

struct Volume {
  int width = 0, height = 0, depth = 0;
  std::vector<std::uint8_t> voxels;  // x fastest, then y, then z
  std::uint8_t at(int x, int y, int z) const {
    return voxels[(static_cast<std::size_t>(z) * height + y) * width + x];
  }
};

// Deterministic for a seed: smooth blobs plus noise, every value 0..255.
Volume synthetic_volume(int width, int height, int depth, std::uint32_t seed);

struct Filter3D {
  int width = 0;               // F: the filter is F x F x F
  std::vector<float> weights;  // x fastest, F^3
  float at(int x, int y, int z) const {
    return weights[(static_cast<std::size_t>(z) * width + y) * width + x];
  }
};

// BANK random filters, weights in [-1, 1] scaled by 1 / F^3.
std::vector<Filter3D> random_filter_bank_3d(int bank, int width, std::uint32_t seed);

struct VolumeRun {
  int out_width = 0, out_height = 0, out_depth = 0;
  std::vector<Image> outputs;  // per filter: out_width x (out_height * out_depth)
  Stats stats;
  std::string work_group;
};

// Sizes of run_volume's buffers for a width x height x depth volume, F-wide
// filters, `bank` of them, `step_x` outputs per work-item along x (1:
// naive). check_volume_fits() throws (UsageError for a volume smaller than
// the filter, Error naming the device's limit) before a voxel is generated.
struct VolumeLayout {
  int out_width = 0, out_height = 0, out_depth = 0, step_x = 1;
  std::size_t out_pitch = 0, in_pitch = 0, in_slice = 0, out_slice = 0, in_bytes = 0, out_bytes = 0;
};
VolumeLayout check_volume_fits(DeviceContext& device, int width, int height, int depth, int F,
                               int bank, int step_x, int wg_x, int wg_y, int wg_z);

// "naive" or "blocked" (block_x outputs per work-item along x).
VolumeRun run_volume(DeviceContext& device, const Volume& volume,
                     const std::vector<Filter3D>& filters, const std::string& variant,
                     int block_x, int wg_x, int wg_y, int wg_z, int reps);

// The exact "valid" correlation, in double, laid out as VolumeRun's planes.
Reference volume_reference(const Volume& volume, const Filter3D& filter);

}  // namespace conv
