#include "step10-fft-tiled/tile.hpp"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <complex>
#include <limits>
#include <string>

#include "common/core/errors.hpp"
#include "common/machinery/reference.hpp"

namespace conv {

std::uint64_t tile_local_bytes(int N) {
  return 8ull * static_cast<std::uint64_t>(N) * (N + N / 8) + 8ull * (N / 2);
}

std::uint64_t register_tile_local_bytes(int N) { return 8ull * static_cast<std::uint64_t>(N) * (N + 1); }

const char* layout_name(TileLayout layout) {
  return layout == TileLayout::local ? "local" : layout == TileLayout::split ? "split" : "registers";
}

bool tile_fits(int N, TileLayout layout, std::uint64_t local_mem_bytes) {
  if (layout == TileLayout::local) return tile_local_bytes(N) <= local_mem_bytes;
  if (layout == TileLayout::registers)
    return N >= kSmallestRegisterTile && N <= kLargestRegisterTile && register_tile_local_bytes(N) <= local_mem_bytes;
  return N >= kSmallestSplit && tile_local_bytes(N / 2) <= local_mem_bytes;
}

TileLayout auto_layout(int N, std::uint64_t local_mem_bytes) {
  if (tile_fits(N, TileLayout::registers, local_mem_bytes)) return TileLayout::registers;
  if (tile_fits(N, TileLayout::local, local_mem_bytes)) return TileLayout::local;
  if (tile_fits(N, TileLayout::split, local_mem_bytes)) return TileLayout::split;
  throw Error("a " + std::to_string(N) + "-point tile needs " + std::to_string(tile_local_bytes(N) / 1024) +
              " KiB of local memory, or " + std::to_string(tile_local_bytes(N / 2) / 1024) +
              " KiB split in four; this device has " + std::to_string(local_mem_bytes / 1024) + " KiB");
}

double tile_flops_per_output(int N, int F) {
  if (N < F) return std::numeric_limits<double>::infinity();
  const double points = static_cast<double>(N) * N, valid = N - F + 1;
  return (2 * 5 * points * std::log2(points) + 6 * points) / (2 * valid * valid);
}

double tile_cost_per_output(int N, TileLayout layout, int F) {
  const double factor = layout == TileLayout::split ? kSplitCost : layout == TileLayout::registers ? kRegisterCost : 1.0;
  return tile_flops_per_output(N, F) * factor;
}

TileChoice choose_tile(int F, std::uint64_t local_mem_bytes, std::vector<TileLayout> layouts) {
  TileChoice best;
  int largest = 0;
  const auto asked = [&](TileLayout layout) {
    return std::find(layouts.begin(), layouts.end(), layout) != layouts.end();
  };
  for (int N : kTileSizes)
    for (TileLayout layout : layouts) {
      if (!tile_fits(N, layout, local_mem_bytes)) continue;
      // A split only for a tile the local layout cannot hold.
      if (layout == TileLayout::split && asked(TileLayout::local) && tile_fits(N, TileLayout::local, local_mem_bytes))
        continue;
      largest = N;
      if (N >= F && (best.tile == 0 || tile_cost_per_output(N, layout, F) <
                                           tile_cost_per_output(best.tile, best.layout, F)))
        best = {N, layout};
    }
  if (best.tile == 0)
    throw Error("a filter " + std::to_string(F) + " wide needs a tile of at least " + std::to_string(F) +
                " points; the largest that fits this device's " + std::to_string(local_mem_bytes / 1024) +
                " KiB of local memory is " + (largest ? std::to_string(largest) : std::string("none")) +
                " (step 9 transforms the whole image instead)");
  return best;
}

std::vector<float> filter_spectrum(const Filter& filter, int N) {
  using C = std::complex<double>;
  const int F = filter.width;
  const double tau = 2 * std::acos(-1.0);
  const auto w = [&](long long k) { return std::polar(1.0, -tau * static_cast<double>(k % N) / N); };
  // Along x: rows[j][u] = sum_i K[j][i] W^(u i); then along y.
  std::vector<C> rows(static_cast<std::size_t>(F) * N);
  for (int j = 0; j < F; ++j)
    for (int u = 0; u < N; ++u) {
      C s = 0;
      for (int i = 0; i < F; ++i) s += static_cast<double>(filter.at(j, i)) * w(static_cast<long long>(u) * i);
      rows[static_cast<std::size_t>(j) * N + u] = s;
    }
  std::vector<float> out(2 * static_cast<std::size_t>(N) * N);
  const double scale = 1.0 / (static_cast<double>(N) * N);
  for (int v = 0; v < N; ++v)
    for (int u = 0; u < N; ++u) {
      C s = 0;
      for (int j = 0; j < F; ++j) s += rows[static_cast<std::size_t>(j) * N + u] * w(static_cast<long long>(v) * j);
      s = std::conj(s) * scale;
      const std::size_t at = 2 * (static_cast<std::size_t>(v) * N + u);
      out[at] = static_cast<float>(s.real());
      out[at + 1] = static_cast<float>(s.imag());
    }
  return out;
}

std::vector<float> twiddles(int N, int count) {
  const double tau = 2 * std::acos(-1.0);
  std::vector<float> out;
  for (int j = 0; j < (count ? count : N / 2); ++j) {
    out.push_back(static_cast<float>(std::cos(tau * j / N)));
    out.push_back(static_cast<float>(-std::sin(tau * j / N)));
  }
  return out;
}

double tiled_fft_error_bound(const Filter& filter, const Image& padded, int N) {
  return 4.0 * std::log2(static_cast<double>(N) * N) * FLT_EPSILON * output_scale(filter, padded);
}

}  // namespace conv
