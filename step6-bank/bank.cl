// Step 6's filter bank (docs/step6-multioutput.md): the register-blocked kernel of convolve.cl applied
// with BANK filters at once. Every weight is a floatBANK (weight (r, c) of
// each filter side by side) and every sum is one too, so each tile value
// loaded into registers feeds BLOCK_X * F * BANK multiply-adds instead of
// BLOCK_X * F. The BANK results of one pixel are stored side by side
// (pixel-major, one aligned floatBANK per pixel); the host splits them into BANK
// output planes. BANK is 1, 2, 4, 8 or 16; with 1 it computes what step
// 6's convolve.cl computes, and
//   diff -u step6-multioutput/convolve.cl step6-bank/bank.cl
// shows the whole idea: the types of the weights and the sums, and the
// store.

#define CAT(a, b) a##b
#define XCAT(a, b) CAT(a, b)
#if BANK == 1
typedef float weights_t;
#else
typedef XCAT(float, BANK) weights_t;              // float4 for BANK 4, ...
#endif
// Stores the BANK sums of pixel i as one aligned vector. (vstoreBANK would
// promise only float alignment, and a GPU then writes BANK scalars.)
#define STORE_SUM(v, i, p) (((__global weights_t*)(p))[i] = (v))

__kernel void convolve(__global const float* input,   // padded, in_pitch floats per row
                       __constant weights_t* filter,  // F x F, row-major, BANK weights each
                       __global float* output,        // whole blocks, BANK floats per pixel
                       const int in_pitch,
                       const int out_pitch,           // pixels per output row
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

#define F FILTER_WIDTH
#define ROW_FLOAT4S ((BLOCK_X + F - 1 + 3) / 4)  // the tile row under a block, in float4s
  weights_t sum[BLOCK_Y][BLOCK_X];
#pragma unroll
  for (int by = 0; by < BLOCK_Y; by++) {
#pragma unroll
    for (int bx = 0; bx < BLOCK_X; bx++) sum[by][bx] = (weights_t)(0.0f);
  }
  // Tile row j meets output row by of the block through filter row j - by.
  for (int j = 0; j < BLOCK_Y + F - 1; j++) {
    float row[4 * ROW_FLOAT4S];
    const int t = (ly * BLOCK_Y + j) * tile_width + lx * BLOCK_X;
#pragma unroll
    for (int q = 0; q < ROW_FLOAT4S; q++) vstore4(vload4(q, tile + t), q, row);
#pragma unroll
    for (int by = 0; by < BLOCK_Y; by++) {
      const int r = j - by;
      if (r >= 0 && r < F) {
#pragma unroll
        for (int c = 0; c < F; c++) {
          const weights_t w = filter[r * F + c];
#pragma unroll
          for (int bx = 0; bx < BLOCK_X; bx++) sum[by][bx] += w * row[bx + c];
        }
      }
    }
  }

  const int x = (get_group_id(0) * get_local_size(0) + lx) * BLOCK_X;
  const int y = (get_group_id(1) * get_local_size(1) + ly) * BLOCK_Y;
#pragma unroll
  for (int by = 0; by < BLOCK_Y; by++) {
#pragma unroll
    for (int bx = 0; bx < BLOCK_X; bx++) STORE_SUM(sum[by][bx], (y + by) * out_pitch + x + bx, output);
  }
}
