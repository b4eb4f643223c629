// Step 10's default rule, which the tuner starts from (tuning.cpp,
// docs/step10-fft-tiled.md, "Which tile"): the flops a tile costs per
// output, and the tile they choose.
#pragma once
#include <cstdint>

namespace conv {

// Floating-point operations per output for tile N and filter width F: the
// pair's forward and inverse 2D transforms (5 n log2 n each for n = N^2
// points) and the product (6 per point), shared by its 2 (N - F + 1)^2
// outputs. Infinite when N < F. Arithmetic, the same on every device.
double tile_flops_per_output(int N, int F);

// The documented default tile for filter width F on a device with
// `local_mem_bytes`: of the tiles at least F wide, the one with the fewest
// flops per output among those that fit local memory whole, or, where it
// takes more, split in four (the split candidate, tile_local_bytes(N / 2),
// N >= 32). `split` says which. 0 when no tile fits.
struct DefaultTile {
  int tile = 0;
  bool split = false;
};
DefaultTile default_tile(int F, std::uint64_t local_mem_bytes);

}  // namespace conv
