// A candidate of step 8's tuner (docs/step8-separable.md, "Candidates"):
// one pass without the tile (--rows direct, --columns direct). Built after
// the lesson's convolve.cl, whose register-block functions it calls, with
// the same TAPS_X x TAPS_Y window, blocks and UNROLL_ROWS.
//
// Each work-item reads the rows under its block straight from global
// memory, then runs the same loop as `convolve`. The tile's job, reading
// each input from DRAM about once, falls to the caches: the work-items
// along a work-group row read neighbouring float4s (one coalesced
// transaction per warp and row), and the rows that blocks above and below
// share come back from L1 or L2. No copy, no barrier, no local memory:
// more work-groups fit on a compute unit, and a column block can be as
// tall as registers allow, reading BLOCK_Y + TAPS_Y - 1 rows for BLOCK_Y
// outputs.
__kernel __attribute__((reqd_work_group_size(WG_X, WG_Y, 1)))
void convolve_direct(__global const float* input,   // padded, in_pitch floats per row
                     __constant float* filter,      // TAPS_Y x TAPS_X, row-major
                     __global float* output,        // out_pitch floats per row
                     const int in_pitch,
                     const int out_pitch,
                     const int accumulate) {        // add to the output (terms after the first)
  const int x = get_global_id(0) * BLOCK_X;
  const int y = get_global_id(1) * BLOCK_Y;
  float sum[BLOCK_Y][BLOCK_X] = {{0.0f}};
#ifdef UNROLL_ROWS
#pragma unroll
#endif
  for (int j = 0; j < BLOCK_Y + TAPS_Y - 1; j++) {
    // x is a multiple of 4 and the pitch of 32, so these loads are aligned.
    __global const float* in = input + (y + j) * in_pitch + x;
    float row[4 * ROW_FLOAT4S];
#pragma unroll
    for (int q = 0; q < ROW_FLOAT4S; q++) vstore4(*(__global const float4*)(in + 4 * q), q, row);
    add_tile_row(sum, row, j, filter);
  }
  store_block(sum, output, x, y, out_pitch, accumulate);
}
