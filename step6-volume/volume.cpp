// The 3D volume's data, filters, serial reference and buffer sizes
// (volume.hpp); its OpenCL host code is launcher.cpp.
#include "step6-volume/volume.hpp"

#include <algorithm>
#include <cmath>
#include <random>

#include "common/core/device_checks.hpp"
#include "common/core/errors.hpp"
#include "common/machinery/device_choice.hpp"
#include "common/machinery/filter_specs.hpp"
#include "common/machinery/parse.hpp"
#include "common/machinery/program_cache.hpp"

namespace conv {

void check_volume_bank(int bank) {
  if (!valid_bank_size(bank))
    throw UsageError("a filter bank holds 1, 2, 4, 8 or 16 filters (OpenCL's vector widths), not " +
                     std::to_string(bank));
}

Volume synthetic_volume(int width, int height, int depth, std::uint32_t seed) {
  if (width < 1 || height < 1 || depth < 1)
    throw UsageError("a volume needs positive sizes, not " + std::to_string(width) + "x" +
                     std::to_string(height) + "x" + std::to_string(depth));
  Volume v;
  v.width = width;
  v.height = height;
  v.depth = depth;
  v.voxels.resize(static_cast<std::size_t>(width) * height * depth);
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> noise(-24, 24);
  const double phase = 0.37 * seed;
  std::size_t i = 0;
  for (int z = 0; z < depth; ++z)
    for (int y = 0; y < height; ++y)
      for (int x = 0; x < width; ++x) {
        const double smooth = 100.0 * std::sin(0.11 * x + phase) * std::cos(0.07 * y) *
                              std::sin(0.05 * z + 1.0);
        const int value = 128 + static_cast<int>(smooth) + noise(rng);
        v.voxels[i++] = static_cast<std::uint8_t>(std::clamp(value, 0, 255));
      }
  return v;
}

std::vector<Filter3D> random_filter_bank_3d(int bank, int width, std::uint32_t seed) {
  check_volume_bank(bank);
  if (width < 1 || width > 31) throw UsageError("a 3D filter width must be 1..31, not " + std::to_string(width));
  std::vector<Filter3D> filters;
  const double scale = 1.0 / (static_cast<double>(width) * width * width);
  for (int b = 0; b < bank; ++b) {
    std::mt19937 rng(seed + static_cast<std::uint32_t>(b));
    std::uniform_real_distribution<double> weight(-1.0, 1.0);
    Filter3D f;
    f.width = width;
    f.weights.resize(static_cast<std::size_t>(width) * width * width);
    for (auto& w : f.weights) w = static_cast<float>(weight(rng) * scale);
    filters.push_back(std::move(f));
  }
  return filters;
}

Reference volume_reference(const Volume& volume, const Filter3D& filter) {
  const int F = filter.width;
  Reference ref;
  const int ow = volume.width - F + 1, oh = volume.height - F + 1, od = volume.depth - F + 1;
  ref.width = ow;
  ref.height = oh * od;
  ref.value.resize(static_cast<std::size_t>(ow) * oh * od);
  ref.magnitude.resize(ref.value.size());
  std::size_t i = 0;
  for (int z = 0; z < od; ++z)
    for (int y = 0; y < oh; ++y)
      for (int x = 0; x < ow; ++x, ++i) {
        double sum = 0, mag = 0;
        for (int dz = 0; dz < F; ++dz)
          for (int dy = 0; dy < F; ++dy)
            for (int dx = 0; dx < F; ++dx) {
              const double term = static_cast<double>(filter.at(dx, dy, dz)) * volume.at(x + dx, y + dy, z + dz);
              sum += term;
              mag += std::fabs(term);
            }
        ref.value[i] = sum;
        ref.magnitude[i] = mag;
      }
  return ref;
}

VolumeLayout check_volume_fits(DeviceContext& device, int width, int height, int depth, int F,
                               int bank, int step_x, int wg_x, int wg_y, int wg_z) {
  VolumeLayout l;
  l.out_width = width - F + 1;
  l.out_height = height - F + 1;
  l.out_depth = depth - F + 1;
  if (l.out_width < 1 || l.out_height < 1 || l.out_depth < 1)
    throw UsageError("the volume (" + std::to_string(width) + "x" + std::to_string(height) + "x" +
                     std::to_string(depth) + ") is smaller than the filter (" + std::to_string(F) +
                     " on a side)");
  check_work_group_shape(device, wg_x, wg_y, wg_z);
  // Whole blocks along x stay inside both buffers (volume.cl).
  l.step_x = step_x;
  l.out_pitch = round_up(l.out_width, step_x);
  l.in_pitch = l.out_pitch + F - 1;
  l.in_slice = l.in_pitch * height;
  l.out_slice = l.out_pitch * l.out_height;
  l.in_bytes = l.in_slice * depth;
  l.out_bytes = l.out_slice * l.out_depth * bank * sizeof(float);
  check_buffer_size(device, l.in_bytes, "the volume");
  check_buffer_size(device, l.out_bytes, "the output volumes");
  return l;
}

}  // namespace conv
