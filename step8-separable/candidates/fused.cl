// Candidates of step 8's tuner (docs/step8-separable.md, "Candidates"):
// both passes in one kernel, so the intermediate image never goes to
// global memory. Built after the lesson's convolve.cl (with TAPS_X = TAPS_Y
// = 1), whose register-block functions they call; FUSED_TILE builds
// convolve_fused (--method fused), FUSED_DIRECT convolve_fused_direct
// (--method fused-direct), neither only the functions below (the strip
// kernel's). Compile-time: FILTER_WIDTH, WG_X x WG_Y, BLOCK_X x BLOCK_Y.

#ifndef GROUP_SIZE
#define GROUP_SIZE (WG_X * WG_Y)
#endif
#define F FILTER_WIDTH
#define SEGMENT_FLOAT4S ((BLOCK_X + F - 1 + 3) / 4)  // the tile row under a block, in float4s

// The fused kernels' row pass: BLOCK_X sums of F taps along one row.
inline void row_sums(float part[BLOCK_X], const float* row, __constant const float* row_weights) {
#pragma unroll
  for (int bx = 0; bx < BLOCK_X; bx++) part[bx] = 0.0f;
#pragma unroll
  for (int c = 0; c < FILTER_WIDTH; c++) {
    const float w = row_weights[c];
#pragma unroll
    for (int bx = 0; bx < BLOCK_X; bx++) part[bx] += w * row[bx + c];
  }
}

// The fused kernels' column pass: the row sums of row j meet output row by
// through column weight j - by.
inline void add_row_sums(float sum[BLOCK_Y][BLOCK_X], const float* part, const int j,
                         __constant const float* column_weights) {
#pragma unroll
  for (int by = 0; by < BLOCK_Y; by++) {
    const int r = j - by;
    if (r >= 0 && r < FILTER_WIDTH) {
      const float w = column_weights[r];
#pragma unroll
      for (int bx = 0; bx < BLOCK_X; bx++) sum[by][bx] += w * part[bx];
    }
  }
}

#ifdef FUSED_TILE
// Both passes in one kernel. The tile (the group's outputs plus F - 1 in
// both directions) is loaded once; the row pass writes its sums for every
// tile row to __local `mid`, and the column pass reads them from there, so
// the intermediate image never goes to global memory. The price: the row
// pass also runs over the F - 1 halo rows, and the tile and `mid` must both
// fit in local memory. A filter of rank k runs its k terms over one tile.
__kernel __attribute__((reqd_work_group_size(WG_X, WG_Y, 1)))
void convolve_fused(__global const float* input,   // padded, in_pitch floats per row
                    __constant float* filter,      // per term: F row weights, F column weights
                    __global float* output,        // out_pitch floats per row
                    const int in_pitch,
                    const int out_pitch,
                    const int rank,                // terms in `filter`
                    __local float* tile,           // FUSED_WIDTH x FUSED_HEIGHT
                    __local float* mid) {          // (work-group width * BLOCK_X) x FUSED_HEIGHT
  const int lx = get_local_id(0);
  const int ly = get_local_id(1);
  // The tile: every work-item's loads first (FUSED_LOADS float4s, numbered
  // along the tile's rows), then the stores, so that all are in flight.
#define FUSED_WIDTH ((WG_X * BLOCK_X + FILTER_WIDTH - 1 + 3) / 4 * 4)
#define FUSED_HEIGHT (WG_Y * BLOCK_Y + FILTER_WIDTH - 1)
#define FUSED_LOADS ((FUSED_WIDTH / 4 * FUSED_HEIGHT + GROUP_SIZE - 1) / GROUP_SIZE)
  const int x0 = get_group_id(0) * WG_X * BLOCK_X;
  const int y0 = get_group_id(1) * WG_Y * BLOCK_Y;
  const int lid = ly * WG_X + lx;
  float4 staged[FUSED_LOADS];
#pragma unroll
  for (int k = 0; k < FUSED_LOADS; k++) {
    const int q = lid + k * GROUP_SIZE;
    if (q < FUSED_WIDTH / 4 * FUSED_HEIGHT)
      staged[k] = *(__global const float4*)(input + (y0 + q / (FUSED_WIDTH / 4)) * in_pitch +
                                            x0 + 4 * (q % (FUSED_WIDTH / 4)));
  }
#pragma unroll
  for (int k = 0; k < FUSED_LOADS; k++) {
    const int q = lid + k * GROUP_SIZE;
    if (q < FUSED_WIDTH / 4 * FUSED_HEIGHT) vstore4(staged[k], q, tile);
  }
  barrier(CLK_LOCAL_MEM_FENCE);

  const int mid_width = WG_X * BLOCK_X;
  float sum[BLOCK_Y][BLOCK_X] = {{0.0f}};
  for (int term = 0; term < rank; term++) {
    __constant float* row_weights = filter + term * 2 * F;
    __constant float* column_weights = row_weights + F;
    // Row pass: BLOCK_X sums per work-item on tile rows ly, ly + height, ...
    for (int ty = ly; ty < FUSED_HEIGHT; ty += WG_Y) {
      float row[4 * SEGMENT_FLOAT4S];
      const int t = ty * FUSED_WIDTH + lx * BLOCK_X;
#pragma unroll
      for (int q = 0; q < SEGMENT_FLOAT4S; q++) vstore4(vload4(q, tile + t), q, row);
      float part[BLOCK_X];
      row_sums(part, row, row_weights);
#pragma unroll
      for (int q = 0; q < BLOCK_X / 4; q++)
        vstore4(vload4(q, part), 0, mid + ty * mid_width + lx * BLOCK_X + 4 * q);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    // Column pass: each row sum under the block meets up to BLOCK_Y outputs.
#ifdef UNROLL_ROWS
#pragma unroll
#endif
    for (int j = 0; j < BLOCK_Y + F - 1; j++) {
      float column[BLOCK_X];
#pragma unroll
      for (int q = 0; q < BLOCK_X / 4; q++)
        vstore4(vload4(0, mid + (ly * BLOCK_Y + j) * mid_width + lx * BLOCK_X + 4 * q), q, column);
      add_row_sums(sum, column, j, column_weights);
    }
    barrier(CLK_LOCAL_MEM_FENCE);  // the next term's row pass overwrites mid
  }
  store_block(sum, output, (get_group_id(0) * get_local_size(0) + lx) * BLOCK_X,
              (get_group_id(1) * get_local_size(1) + ly) * BLOCK_Y, out_pitch, 0);
}
#endif

#ifdef FUSED_DIRECT
// Both passes in one kernel without the tile (--method fused-direct). Each
// work-item walks down the BLOCK_Y + F - 1 input rows under its block: on
// each it runs the row pass (BLOCK_X sums from a segment read straight from
// global memory, as convolve_direct reads it) and adds the result to the up
// to BLOCK_Y column sums that row meets. One pass over the image and no
// local memory, no barrier; the price is the row pass over F - 1 more rows
// per block, (BLOCK_Y + F - 1) / BLOCK_Y times its work, which is cheap only
// while F is small.
__kernel __attribute__((reqd_work_group_size(WG_X, WG_Y, 1)))
void convolve_fused_direct(__global const float* input,   // padded, in_pitch floats per row
                           __constant float* filter,      // per term: F row weights, F column weights
                           __global float* output,        // out_pitch floats per row
                           const int in_pitch,
                           const int out_pitch,
                           const int rank) {              // terms in `filter`
  const int x = get_global_id(0) * BLOCK_X;
  const int y = get_global_id(1) * BLOCK_Y;
  float sum[BLOCK_Y][BLOCK_X] = {{0.0f}};
  for (int term = 0; term < rank; term++) {
    __constant float* row_weights = filter + term * 2 * F;
    __constant float* column_weights = row_weights + F;
#ifdef UNROLL_ROWS
#pragma unroll
#endif
    for (int j = 0; j < BLOCK_Y + F - 1; j++) {
      // The row pass on input row y + j (aligned float4 loads, as above),
      // then the column pass: that row's sums meet output rows j - F + 1 .. j.
      __global const float* in = input + (y + j) * in_pitch + x;
      float row[4 * SEGMENT_FLOAT4S];
#pragma unroll
      for (int q = 0; q < SEGMENT_FLOAT4S; q++) vstore4(*(__global const float4*)(in + 4 * q), q, row);
      float part[BLOCK_X];
      row_sums(part, row, row_weights);
      add_row_sums(sum, part, j, column_weights);
    }
  }
  store_block(sum, output, x, y, out_pitch, 0);
}
#endif
