#include "step10-fft-tiled/tile.hpp"

#include <cfloat>
#include <cmath>
#include <complex>

#include "common/machinery/reference.hpp"

namespace conv {

std::uint64_t tile_local_bytes(int N) {
  return 8ull * static_cast<std::uint64_t>(N) * (N + N / 8) + 8ull * (N / 2);
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
