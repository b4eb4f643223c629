// Step 1: the naive kernel. One work-item computes one output pixel, reading
// the image and the filter straight from global memory.
//
// Step 2: the filter moves to __constant memory. Every work-item of a
// work-group reads the same filter weight at the same time; constant memory
// is cached and broadcasts one value to all of them in one transaction.
//
// Step 3: the work-group first copies the input it needs - its own tile plus
// a halo of F - 1 columns and rows - into __local memory, waits at a barrier,
// then correlates from there. Each input pixel is read from global memory
// about once per work-group instead of up to F * F times.
//
// Step 4: the inner loop is unrolled by four, so the loop test and branch
// run a quarter as often. Three variants, chosen at build time:
//   loop4  (default)          the leftover F % 4 columns run in a second loop;
//   ifelse (-D REMAINDER_IFELSE) the leftovers are an if-else chain instead;
//   fixed  (-D FILTER_WIDTH=F)   F is a compile-time constant, so the
//                                compiler unrolls both loops completely.
//
// Step 5: the tile is copied four floats at a time, with float4 loads. The
// launcher pads every row of the device image to a multiple of 32 floats
// (128 bytes, --aligned on) and uploads it with enqueueWriteBufferRect, so
// each float4 load is one aligned 16-byte transaction; it also leaves room
// after the image so that whole float4s never leave the buffer, and the
// copy needs no bounds test. The width is always a compile-time constant.
//
// Step 6: each work-item computes a BLOCK_X x BLOCK_Y block of outputs
// (register blocking). It reads each tile row under its block into
// registers once and uses each value in up to min(BLOCK_X, F) multiply-adds
// for each of the up to min(BLOCK_Y, F) output rows that tile row meets:
// local-memory values per FMA fall from 1 to
// (BLOCK_X + F - 1) * (BLOCK_Y + F - 1) / (BLOCK_X * BLOCK_Y * F * F). The
// block and the width are compile-time constants, so the sums and the row
// live in registers. The launcher sizes the output to whole blocks (row
// pitch a multiple of 4), so blocks are stored as float4s with no range guard.
//
// Step 7: a separable filter, K = column * row^T, is two 1D filters, so
// the F x F sum becomes two sums of F: a row pass (1 x F taps, over every
// padded row) into an intermediate image, then a column pass (F x 1 taps)
// over it. Each pass is this same kernel with TAPS_X x TAPS_Y taps: step 6's
// tile, float4 loads and register blocking, with one side of the window 1.
// A filter of rank k is k such pairs; the column passes after the first add
// to the output (`accumulate`). One pass's code grows with F, not F * F, so
// the loop over tile rows can be unrolled (UNROLL_ROWS) at any width: every
// weight index becomes a constant. convolve_fused does both passes in one
// kernel through __local memory instead (the lesson measures which wins).
//
// The host padded the input by the filter's reach, so the work-item at
// (x, y) correlates the F x F window whose top-left corner is input (x, y)
// and needs no border logic at all.

__kernel void convolve(__global const float* input,   // padded, in_pitch floats per row
                       __constant float* filter,      // F x F, row-major
                       __global float* output,        // out_width x out_height
                       const int in_pitch,
                       const int out_pitch,           // floats per output row
                       const int out_height,
                       const int filter_width,        // unused: TAPS_X, TAPS_Y are compile-time
                       __local float* tile,           // tile_width x tile_height
                       const int tile_width,          // work-group width * BLOCK_X + TAPS_X - 1, to a multiple of 4
                       const int tile_height,         // work-group height * BLOCK_Y + TAPS_Y - 1
                       const int accumulate) {        // add to the output (terms after the first)
  const int lx = get_local_id(0);
  const int ly = get_local_id(1);

  // Copy the tile and its halo. The tile is larger than the work-group, so
  // each work-item loads several float4s, striding by the work-group size.
  const int tile_x = get_group_id(0) * get_local_size(0) * BLOCK_X;
  const int tile_y = get_group_id(1) * get_local_size(1) * BLOCK_Y;
  for (int ty = ly; ty < tile_height; ty += get_local_size(1)) {
    for (int tx = 4 * lx; tx < tile_width; tx += 4 * get_local_size(0)) {
      const int i = (tile_y + ty) * in_pitch + (tile_x + tx);
#if defined(SCALAR_LOADS)
      tile[ty * tile_width + tx] = input[i];      // the same bytes, four loads
      tile[ty * tile_width + tx + 1] = input[i + 1];
      tile[ty * tile_width + tx + 2] = input[i + 2];
      tile[ty * tile_width + tx + 3] = input[i + 3];
#elif defined(ALIGNED_PITCH)
      vstore4(*(__global const float4*)(input + i), 0, tile + ty * tile_width + tx);
#else
      vstore4(vload4(0, input + i), 0, tile + ty * tile_width + tx);  // any alignment
#endif
    }
  }
  // Every work-item of the group must arrive here before any reads the tile.
  barrier(CLK_LOCAL_MEM_FENCE);

#define ROW_FLOAT4S ((BLOCK_X + TAPS_X - 1 + 3) / 4)  // the tile row under a block, in float4s
  float sum[BLOCK_Y][BLOCK_X];
#pragma unroll
  for (int by = 0; by < BLOCK_Y; by++) {
#pragma unroll
    for (int bx = 0; bx < BLOCK_X; bx++) sum[by][bx] = 0.0f;
  }
  // Tile row j meets output row by of the block through filter row j - by.
  // With -D UNROLL_ROWS the compiler unrolls this loop too, so each weight
  // is loaded once (good for small filters, on some devices; see the lesson).
#ifdef UNROLL_ROWS
#pragma unroll
#endif
  for (int j = 0; j < BLOCK_Y + TAPS_Y - 1; j++) {
    float row[4 * ROW_FLOAT4S];
    const int t = (ly * BLOCK_Y + j) * tile_width + lx * BLOCK_X;
#pragma unroll
    for (int q = 0; q < ROW_FLOAT4S; q++) vstore4(vload4(q, tile + t), q, row);
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

  const int x = (get_group_id(0) * get_local_size(0) + lx) * BLOCK_X;
  const int y = (get_group_id(1) * get_local_size(1) + ly) * BLOCK_Y;
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

// Both passes in one kernel. The tile (the group's outputs plus F - 1 in
// both directions) is loaded once; the row pass writes its sums for every
// tile row to __local `mid`, and the column pass reads them from there, so
// the intermediate image never goes to global memory. The price: the row
// pass also runs over the F - 1 halo rows, and the tile and `mid` must both
// fit in local memory. A filter of rank k runs its k terms over one tile.
__kernel void convolve_fused(__global const float* input,   // padded, in_pitch floats per row
                             __constant float* filter,      // per term: F row weights, F column weights
                             __global float* output,        // out_pitch floats per row
                             const int in_pitch,
                             const int out_pitch,
                             const int rank,                // terms in `filter`
                             __local float* tile,           // tile_width x tile_height
                             const int tile_width,          // work-group width * BLOCK_X + F - 1, to a multiple of 4
                             const int tile_height,         // work-group height * BLOCK_Y + F - 1
                             __local float* mid) {          // (work-group width * BLOCK_X) x tile_height
  const int lx = get_local_id(0);
  const int ly = get_local_id(1);
  const int tile_x = get_group_id(0) * get_local_size(0) * BLOCK_X;
  const int tile_y = get_group_id(1) * get_local_size(1) * BLOCK_Y;
  for (int ty = ly; ty < tile_height; ty += get_local_size(1)) {
    for (int tx = 4 * lx; tx < tile_width; tx += 4 * get_local_size(0)) {
      const int i = (tile_y + ty) * in_pitch + (tile_x + tx);
      vstore4(*(__global const float4*)(input + i), 0, tile + ty * tile_width + tx);
    }
  }
  barrier(CLK_LOCAL_MEM_FENCE);

#define F FILTER_WIDTH
#define SEGMENT_FLOAT4S ((BLOCK_X + F - 1 + 3) / 4)  // the tile row under a block, in float4s
  const int mid_width = get_local_size(0) * BLOCK_X;
  float sum[BLOCK_Y][BLOCK_X];
#pragma unroll
  for (int by = 0; by < BLOCK_Y; by++) {
#pragma unroll
    for (int bx = 0; bx < BLOCK_X; bx++) sum[by][bx] = 0.0f;
  }
  for (int term = 0; term < rank; term++) {
    __constant float* row_weights = filter + term * 2 * F;
    __constant float* column_weights = row_weights + F;
    // Row pass: BLOCK_X sums per work-item on tile rows ly, ly + height, ...
    for (int ty = ly; ty < tile_height; ty += get_local_size(1)) {
      float row[4 * SEGMENT_FLOAT4S];
      const int t = ty * tile_width + lx * BLOCK_X;
#pragma unroll
      for (int q = 0; q < SEGMENT_FLOAT4S; q++) vstore4(vload4(q, tile + t), q, row);
      float part[BLOCK_X];
#pragma unroll
      for (int bx = 0; bx < BLOCK_X; bx++) part[bx] = 0.0f;
#pragma unroll
      for (int c = 0; c < F; c++) {
        const float w = row_weights[c];
#pragma unroll
        for (int bx = 0; bx < BLOCK_X; bx++) part[bx] += w * row[bx + c];
      }
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
#pragma unroll
      for (int by = 0; by < BLOCK_Y; by++) {
        const int r = j - by;
        if (r >= 0 && r < F) {
          const float w = column_weights[r];
#pragma unroll
          for (int bx = 0; bx < BLOCK_X; bx++) sum[by][bx] += w * column[bx];
        }
      }
    }
    barrier(CLK_LOCAL_MEM_FENCE);  // the next term's row pass overwrites mid
  }

  const int x = (get_group_id(0) * get_local_size(0) + lx) * BLOCK_X;
  const int y = (get_group_id(1) * get_local_size(1) + ly) * BLOCK_Y;
#pragma unroll
  for (int by = 0; by < BLOCK_Y; by++) {
#pragma unroll
    for (int q = 0; q < BLOCK_X / 4; q++) {
      const float4 v = (float4)(sum[by][4 * q], sum[by][4 * q + 1], sum[by][4 * q + 2], sum[by][4 * q + 3]);
      *(__global float4*)(output + (y + by) * out_pitch + x + 4 * q) = v;
    }
  }
}
