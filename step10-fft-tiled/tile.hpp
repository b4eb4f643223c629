// Step 10's host-side arithmetic: which tile to use, the filter's spectrum
// for it, the twiddles, and the error bound (docs/step10-fft-tiled.md).
#pragma once
#include <cstdint>
#include <vector>

#include "common/machinery/filter_specs.hpp"
#include "common/machinery/image_files.hpp"

namespace conv {

// The tile sizes the kernel is built for: powers of two, 16 to 256.
constexpr int kTileSizes[] = {16, 32, 64, 128, 256};
constexpr int kLargestTile = kTileSizes[sizeof(kTileSizes) / sizeof(kTileSizes[0]) - 1];
// The smallest tile the split layout takes (its sub-tiles are 16 points).
constexpr int kSmallestSplit = 32;

// Where a tile's transform lives: all of it in local memory (convolve.cl's
// convolve), or four N/2 x N/2 sub-tiles through local memory one after
// another and the first stage in registers (convolve_split), for a tile
// that local memory cannot hold. The split layout needs N >= kSmallestSplit.
// Or each column and row of the tile whole in one work-item's registers,
// local memory only for the two exchanges between them
// (convolve_registers): N from kSmallestRegisterTile to kLargestRegisterTile.
// Its work-group is N work-items, and 16 would be half a GPU's warp: on the
// H100 the 16-point tile took 1.37x as long as the 32-point one at F = 3
// (one run, 2026-11-27; in fft-tiled-h100.csv the local layout's 16-point
// tile is slower than its 32-point one there too).
enum class TileLayout { local, split, registers };
constexpr int kSmallestRegisterTile = 32;
constexpr int kLargestRegisterTile = 64;
const char* layout_name(TileLayout layout);

// Bytes of local memory one work-group of the kernel uses for an N x N
// tile in the local layout: N rows of N + N/8 complex floats (the padding:
// convolve.cl's at()), and N / 2 twiddles. The split layout needs
// tile_local_bytes(N / 2).
std::uint64_t tile_local_bytes(int N);
// The registers layout's local memory: N rows of N + 1 complex floats.
std::uint64_t register_tile_local_bytes(int N);
// Whether tile N in `layout` fits `local_mem_bytes`.
bool tile_fits(int N, TileLayout layout, std::uint64_t local_mem_bytes);
// The layout tile N runs in when none is asked for: the cheapest that fits
// (registers, then local, then split). Throws Error naming the local memory
// the local and split layouts would need when none fits.
TileLayout auto_layout(int N, std::uint64_t local_mem_bytes);

// Floating-point operations per output for tile N and filter width F: the
// pair's forward and inverse 2D transforms (5 n log2 n each for n = N^2
// points) and the product (6 per point), shared by its 2 (N - F + 1)^2
// outputs. Infinite when N < F.
double tile_flops_per_output(int N, int F);

// What `--tile auto` ranks tiles by: flops per output, times
// kSplitCost in the split layout. A split tile's flops cost more: one
// work-group holds a whole tile in registers, so fewer of them share a
// compute unit and each waits at its barriers alone. Measured on the H100
// (8192x8192, 2026-11-26): 1.5x (F = 31) to 1.8x (F = 7) the time per flop
// of the 64-point tile in local memory; the lowest is taken, so that a
// split wins where it is faster, from F = 31 on.
constexpr double kSplitCost = 1.5;
// And times kRegisterCost in the registers layout, whose flops cost less:
// two exchanges through local memory instead of six. Measured on the H100
// (8192x8192, 2026-11-27, fft-tiled-h100.csv): 0.65 to 0.68 the time per
// flop of the same tile in local memory (F = 31 and 15). 0.75 keeps the
// split 128-point tile from F = 35 on; no width between 31 and 45 was
// measured to tell the two apart. On PoCL it is faster too
// (fft-tiled-pocl.csv), and a CPU's larger local memory still gets a
// 256-point tile whole for the wide filters where it fits.
constexpr double kRegisterCost = 0.75;
double tile_cost_per_output(int N, TileLayout layout, int F);

// The tile `--tile auto` runs: of the sizes and layouts that fit
// `local_mem_bytes` in `layouts` (a split only where the local layout does
// not fit), the one with the lowest cost per output (the smaller on a
// tie). Throws Error when none is at least F wide.
struct TileChoice {
  int tile = 0;
  TileLayout layout = TileLayout::local;
};
TileChoice choose_tile(int F, std::uint64_t local_mem_bytes,
                       std::vector<TileLayout> layouts = {TileLayout::registers, TileLayout::local,
                                                          TileLayout::split});

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
