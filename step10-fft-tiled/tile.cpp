#include "step10-fft-tiled/tile.hpp"

#include <cfloat>
#include <cmath>
#include <complex>
#include <limits>

#include "common/machinery/reference.hpp"

namespace conv {

std::uint64_t tile_local_bytes(int N) {
  return 8ull * static_cast<std::uint64_t>(N) * (N + N / 8) + 8ull * (N / 2);
}

double tile_flops_per_output(int N, int F) {
  if (N < F) return std::numeric_limits<double>::infinity();
  const double points = static_cast<double>(N) * N, valid = N - F + 1;
  return (2 * 5 * points * std::log2(points) + 6 * points) / (2 * valid * valid);
}

DefaultTile default_tile(int F, std::uint64_t local_mem_bytes) {
  DefaultTile best;
  for (int N : kTileSizes) {
    const bool whole = tile_local_bytes(N) <= local_mem_bytes;
    const bool split = N >= 32 && tile_local_bytes(N / 2) <= local_mem_bytes;
    if (N < F || !(whole || split)) continue;
    if (best.tile == 0 || tile_flops_per_output(N, F) < tile_flops_per_output(best.tile, F)) best = {N, !whole};
  }
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
