// Step 6: register blocking (docs/step6-multioutput.md). Each work-item
// computes a BLOCK_X x BLOCK_Y block of outputs, reading each tile row under
// its block into registers once and reusing it across the block (the block
// and the width are compile-time constants, so sums and row stay in
// registers). The output is whole blocks, stored as float4s with no range
// guard. The rest is step 5's kernel.

__kernel void convolve(__global const float* input,   // padded, in_pitch floats per row
                       __constant float* filter,      // F x F, row-major
                       __global float* output,        // whole blocks, out_pitch floats per row
                       const int in_pitch,
                       const int out_pitch,           // floats per output row
                       __local float* tile,           // tile_width x tile_height
                       const int tile_width,          // work-group width * BLOCK_X + F - 1, to a multiple of 4
                       const int tile_height) {       // work-group height * BLOCK_Y + F - 1
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

#define F FILTER_WIDTH  // always a constant here: the compiler unrolls the loops over it
#define ROW_FLOAT4S ((BLOCK_X + F - 1 + 3) / 4)  // the tile row under a block, in float4s
  float sum[BLOCK_Y][BLOCK_X];
#pragma unroll
  for (int by = 0; by < BLOCK_Y; by++) {
#pragma unroll
    for (int bx = 0; bx < BLOCK_X; bx++) sum[by][bx] = 0.0f;  // every sum starts at zero
  }
  // Tile row j meets output row by of the block through filter row j - by.
  for (int j = 0; j < BLOCK_Y + F - 1; j++) {
    float row[4 * ROW_FLOAT4S];  // tile row j under the block, in registers
    const int t = (ly * BLOCK_Y + j) * tile_width + lx * BLOCK_X;
#pragma unroll
    for (int q = 0; q < ROW_FLOAT4S; q++) vstore4(vload4(q, tile + t), q, row);
#pragma unroll
    for (int by = 0; by < BLOCK_Y; by++) {
      const int r = j - by;
      if (r >= 0 && r < F) {
#pragma unroll
        for (int c = 0; c < F; c++) {
          const float w = filter[r * F + c];
#pragma unroll
          for (int bx = 0; bx < BLOCK_X; bx++) sum[by][bx] += w * row[bx + c];
        }
      }
    }
  }

#pragma unroll
  for (int by = 0; by < BLOCK_Y; by++) {
#pragma unroll
    for (int q = 0; q < BLOCK_X / 4; q++) {
      const float4 v = (float4)(sum[by][4 * q], sum[by][4 * q + 1], sum[by][4 * q + 2], sum[by][4 * q + 3]);
      *(__global float4*)(output + (y + by) * out_pitch + x + 4 * q) = v;
    }
  }
}
