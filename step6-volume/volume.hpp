// Step 6 in 3D (docs/step6-multioutput.md, "In 3D"): a uchar volume and
// BANK F x F x F filters correlated at once (volume.cl), the naive kernel
// against the register-blocked one. Not a step of the 2D tour: it has its
// own executable (build/bin/step6-volume, main.cpp), its own serial
// reference, and its tests (tests/volume.cpp).
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "common/machinery/device_choice.hpp"
#include "common/machinery/guard.hpp"
#include "common/machinery/program_cache.hpp"
#include "common/machinery/reference.hpp"

namespace conv {

struct Volume {
  int width = 0, height = 0, depth = 0;
  std::vector<std::uint8_t> voxels;  // x fastest, then y, then z
  std::uint8_t at(int x, int y, int z) const {
    return voxels[(static_cast<std::size_t>(z) * height + y) * width + x];
  }
};

// Throws UsageError naming the sizes for any other bank.
void check_volume_bank(int bank);

// Deterministic for a seed: smooth blobs plus noise, every value 0..255.
Volume synthetic_volume(int width, int height, int depth, std::uint32_t seed);

struct Filter3D {
  int width = 0;               // F: the filter is F x F x F
  std::vector<float> weights;  // x fastest, F^3
  float at(int x, int y, int z) const {
    return weights[(static_cast<std::size_t>(z) * width + y) * width + x];
  }
};

// BANK random filters, weights in [-1, 1] scaled by 1 / F^3 (seeds seed,
// seed + 1, ...).
std::vector<Filter3D> random_filter_bank_3d(int bank, int width, std::uint32_t seed);

// The exact "valid" correlation, in double, laid out as VolumeRun's planes.
Reference volume_reference(const Volume& volume, const Filter3D& filter);

// Sizes of the launch's buffers for a width x height x depth volume, F-wide
// filters, `bank` of them, `step_x` outputs per work-item along x (1:
// naive). check_volume_fits() throws (UsageError for a volume smaller than
// the filter, Error naming the device's limit) before a voxel is generated.
struct VolumeLayout {
  int out_width = 0, out_height = 0, out_depth = 0, step_x = 1;
  std::size_t out_pitch = 0, in_pitch = 0, in_slice = 0, out_slice = 0, in_bytes = 0, out_bytes = 0;
};
VolumeLayout check_volume_fits(DeviceContext& device, int width, int height, int depth, int F,
                               int bank, int step_x, int wg_x, int wg_y, int wg_z);

// volume.cl ready to run (launcher.cpp): the volume and the filters
// uploaded, the kernel's arguments and 3D ranges set. launch.read returns
// every output volume at once, BANK planes of out_width x (out_height *
// out_depth) stacked from top to bottom; checked_planes() separates them.
struct VolumeLaunch {
  Launch launch;
  VolumeLayout layout;
  int bank = 1;
};

// "naive" or "blocked" (block_x outputs per work-item along x).
VolumeLaunch prepare_volume(DeviceContext& device, const Volume& volume,
                            const std::vector<Filter3D>& filters, const std::string& variant,
                            int block_x, int wg_x, int wg_y, int wg_z);

// launch.read's stacked image as `bank` planes, each checked: a voxel the
// kernel never wrote, or a NaN, throws KernelFault naming its plane.
std::vector<Image> checked_planes(const Image& stacked, int bank);

struct VolumeRun {
  int out_width = 0, out_height = 0, out_depth = 0;
  std::vector<Image> outputs;  // per filter: out_width x (out_height * out_depth)
  Stats stats;
  std::string work_group;
};

// The prepared launch through run_launch (common/core/run_step.hpp): outputs
// poisoned, one run whose planes are read and checked, one warm-up, `reps`
// timed runs, the buffers' guard margins checked.
VolumeRun run_volume(VolumeLaunch& prepared, int reps);

// prepare_volume, then run_volume.
VolumeRun run_volume(DeviceContext& device, const Volume& volume,
                     const std::vector<Filter3D>& filters, const std::string& variant,
                     int block_x, int wg_x, int wg_y, int wg_z, int reps);

}  // namespace conv
