// Step 10's host-side arithmetic: what a tile costs, the filter's spectrum
// for it, the twiddles, and the error bound (docs/step10-fft-tiled.md).
#pragma once
#include <cstdint>
#include <vector>

#include "common/machinery/filter_specs.hpp"
#include "common/machinery/image_files.hpp"

namespace conv {

// The tile sizes the kernels are built for: powers of two, 16 to 256.
constexpr int kTileSizes[] = {16, 32, 64, 128, 256};
constexpr int kLargestTile = kTileSizes[sizeof(kTileSizes) / sizeof(kTileSizes[0]) - 1];

// Bytes of local memory one work-group of convolve.cl uses for an N x N
// tile: N rows of N + N/8 complex floats (the padding: convolve.cl's
// at()), and N / 2 twiddles.
std::uint64_t tile_local_bytes(int N);

// Floating-point operations per output for tile N and filter width F: the
// pair's forward and inverse 2D transforms (5 n log2 n each for n = N^2
// points) and the product (6 per point), shared by its 2 (N - F + 1)^2
// outputs. Infinite when N < F. Arithmetic, the same on every device.
double tile_flops_per_output(int N, int F);

// The documented default tile for filter width F on a device with
// `local_mem_bytes` (docs/step10-fft-tiled.md, "Which tile"): of the tiles
// at least F wide, the one with the fewest flops per output among those
// that fit local memory whole, or, where it takes more, split in four
// (the split candidate, tile_local_bytes(N / 2), N >= 32). `split` says
// which. 0 when no tile fits.
struct DefaultTile {
  int tile = 0;
  bool split = false;
};
DefaultTile default_tile(int F, std::uint64_t local_mem_bytes);

// conj(DFT(K)) / N^2 for K in the corner of an N x N zero array, as
// interleaved (re, im) floats, row-major: the factor that turns the tile's
// spectrum into its correlation's, normalization included. Computed in
// double, one axis at a time.
std::vector<float> filter_spectrum(const Filter& filter, int N);

// W^j = exp(-2 pi i j / N) for j < count (N / 2 unless given), interleaved,
// computed in double.
std::vector<float> twiddles(int N, int count = 0);

// The bound the conformance suite holds step 10 to at every output:
// 4 log2(N^2) eps sum|K| max|x|.
double tiled_fft_error_bound(const Filter& filter, const Image& padded, int N);

}  // namespace conv
