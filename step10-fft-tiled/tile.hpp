// Step 10's host-side arithmetic: the tiles, the filter's spectrum for one,
// the twiddles, and the error bound (docs/step10-fft-tiled.md). What a tile
// costs, and the default tile, are the tuner's (the candidates'
// default_tile.hpp).
#pragma once
#include <cstdint>
#include <vector>

#include "common/machinery/filter_specs.hpp"
#include "common/machinery/image_files.hpp"

namespace conv {

// The tile sizes the kernels are built for: powers of two, 16 to 256.
constexpr int kTileSizes[] = {16, 32, 64, 128, 256};
constexpr int kLargestTile = kTileSizes[sizeof(kTileSizes) / sizeof(kTileSizes[0]) - 1];

// Bytes of local memory one work-group of convolve.cl (or of the fused
// candidate: the same arrays) uses for an N x N tile: N rows of N + N/8
// complex floats (the padding: convolve.cl's at()), and N / 2 twiddles.
std::uint64_t tile_local_bytes(int N);

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
