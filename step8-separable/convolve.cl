// Step 8: the separable filter (docs/step8-separable.md). A filter
// K = column * row^T is a row pass (1 x F taps) into an intermediate image,
// then a column pass (F x 1) over it: step 6's kernel with a TAPS_Y x TAPS_X
// window, built once for each. A filter of rank k is k such pairs; the
// column passes after the first add to the output (`accumulate`). The
// tuner's candidate kernels, built after this file, call its functions.

#define ROW_FLOAT4S ((BLOCK_X + TAPS_X - 1 + 3) / 4)  // the tile row under a block, in float4s

// Tile row j (in registers) meets output row by through window row j - by.
inline void add_tile_row(float sum[BLOCK_Y][BLOCK_X], const float* row, const int j,
                         __constant const float* filter) {
#pragma unroll
  for (int by = 0; by < BLOCK_Y; by++) {
    const int r = j - by;
    if (r >= 0 && r < TAPS_Y) {
#pragma unroll
      for (int c = 0; c < TAPS_X; c++) {
        const float w = filter[r * TAPS_X + c];
#pragma unroll
        for (int bx = 0; bx < BLOCK_X; bx++) sum[by][bx] += w * row[bx + c];
      }
    }
  }
}

// The block's sums stored as float4s, added to the output's when `accumulate`.
inline void store_block(float sum[BLOCK_Y][BLOCK_X], __global float* output, const int x, const int y,
                        const int out_pitch, const int accumulate) {
#pragma unroll
  for (int by = 0; by < BLOCK_Y; by++) {
#pragma unroll
    for (int q = 0; q < BLOCK_X / 4; q++) {
      float4 v = (float4)(sum[by][4 * q], sum[by][4 * q + 1], sum[by][4 * q + 2], sum[by][4 * q + 3]);
      __global float4* out = (__global float4*)(output + (y + by) * out_pitch + x + 4 * q);
      if (accumulate) v += *out;
      *out = v;
    }
  }
}

__kernel void convolve(__global const float* input,   // padded, in_pitch floats per row
                       __constant float* filter,      // TAPS_Y x TAPS_X, row-major
                       __global float* output,        // whole blocks, out_pitch floats per row
                       const int in_pitch,
                       const int out_pitch,           // floats per output row
                       __local float* tile,           // tile_width x tile_height
                       const int tile_width,          // work-group width * BLOCK_X + TAPS_X - 1, to a multiple of 4
                       const int tile_height,         // work-group height * BLOCK_Y + TAPS_Y - 1
                       const int accumulate) {        // add to the output (the terms after the first)
  const int lx = get_local_id(0);
  const int ly = get_local_id(1);

  // Copy the tile and its halo. The tile is larger than the work-group, so
  // each work-item loads several float4s, striding by the work-group size.
  const int tile_x = get_group_id(0) * get_local_size(0) * BLOCK_X;
  const int tile_y = get_group_id(1) * get_local_size(1) * BLOCK_Y;
  for (int ty = ly; ty < tile_height; ty += get_local_size(1)) {
    for (int tx = 4 * lx; tx < tile_width; tx += 4 * get_local_size(0)) {
      const int i = (tile_y + ty) * in_pitch + (tile_x + tx);
      vstore4(*(__global const float4*)(input + i), 0, tile + ty * tile_width + tx);
    }
  }
  // Every work-item of the group must arrive here before any reads the tile.
  barrier(CLK_LOCAL_MEM_FENCE);

  // No range guard: the grid is whole blocks, and the output buffer holds
  // them all; the blocks past the image compute values nobody reads.
  const int x = get_global_id(0) * BLOCK_X;
  const int y = get_global_id(1) * BLOCK_Y;

  float sum[BLOCK_Y][BLOCK_X];
#pragma unroll
  for (int by = 0; by < BLOCK_Y; by++) {
#pragma unroll
    for (int bx = 0; bx < BLOCK_X; bx++) sum[by][bx] = 0.0f;  // every sum starts at zero
  }
  // Tile row j meets output row by of the block through window row j - by.
#ifdef UNROLL_ROWS
#pragma unroll
#endif
  for (int j = 0; j < BLOCK_Y + TAPS_Y - 1; j++) {
    float row[4 * ROW_FLOAT4S];  // tile row j under the block, in registers
    const int t = (ly * BLOCK_Y + j) * tile_width + lx * BLOCK_X;
#pragma unroll
    for (int q = 0; q < ROW_FLOAT4S; q++) vstore4(vload4(q, tile + t), q, row);
    add_tile_row(sum, row, j, filter);
  }
  store_block(sum, output, x, y, out_pitch, accumulate);
}
