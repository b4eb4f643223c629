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
// Two switches choose the shape of the inner loops (the lesson measures
// both): -D WEIGHTS_LOCAL copies the weights into local memory, each filter
// row padded to whole float4s so that four weights come with one load; and
// -D VECTOR_BLOCK makes each row of the block one floatN vector (N =
// BLOCK_X), the shape a CPU's SIMD units want.
//
// A third place for the weights: -D WEIGHTS_INLINE builds the kernel for one
// filter. The launcher puts a line "#define FILTER_VALUES w0, w1, ..." in
// front of this source, and the weights become a program-scope __constant
// array. Where the loops are unrolled, every index into it is a compile-time
// constant, so the compiler can fold each weight into its multiply-add as an
// operand instead of loading it. The price is a build for every filter.
// And -D FLAT_COPY shares the tile's copy out evenly (at the copy, below).
//
// Last, -D DIRECT_READS adds convolve_direct, the same blocks without the
// tile (--tile off, at the end of this file).
//
// The host padded the input by the filter's reach, so the work-item at
// (x, y) correlates the F x F window whose top-left corner is input (x, y)
// and needs no border logic at all.

#ifdef WEIGHTS_INLINE
__constant float inline_weights[FILTER_WIDTH * FILTER_WIDTH] = {FILTER_VALUES};
#endif

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
#define F FILTER_WIDTH

  // Where the loops read weight (r, c): one of three places, chosen once.
#if defined(WEIGHTS_LOCAL)
  // local: copied into local memory, each filter row padded to whole float4s.
#define WEIGHTS_PITCH (4 * ((F + 3) / 4))  // a filter row, padded to whole float4s
  __local float4 weights4[F * WEIGHTS_PITCH / 4];
  __local float* weights = (__local float*)weights4;
  for (int i = ly * get_local_size(0) + lx; i < F * WEIGHTS_PITCH; i += get_local_size(0) * get_local_size(1)) {
    const int r = i / WEIGHTS_PITCH, c = i % WEIGHTS_PITCH;
    weights[i] = c < F ? filter[r * F + c] : 0.0f;
  }
#define WEIGHT(r, c) weights[(r) * WEIGHTS_PITCH + (c)]
#elif defined(WEIGHTS_INLINE)
  // inline: the program-scope array built from this filter's values.
#define WEIGHT(r, c) inline_weights[(r) * F + (c)]
#else
  // constant: the filter argument, in constant memory as in step 5.
#define WEIGHT(r, c) filter[(r) * F + (c)]
#endif

  // Copy the tile and its halo. The tile is larger than the work-group, so
  // each work-item loads several float4s, striding by the work-group size.
  const int tile_x = get_group_id(0) * get_local_size(0) * BLOCK_X;
  const int tile_y = get_group_id(1) * get_local_size(1) * BLOCK_Y;
#ifndef FLAT_COPY
  // rows: as step 5 copies aligned rows, each work-item taking float4s along
  // the rows ly, ly + height, ...
  for (int ty = ly; ty < tile_height; ty += get_local_size(1)) {
    for (int tx = 4 * lx; tx < tile_width; tx += 4 * get_local_size(0)) {
      const int i = (tile_y + ty) * in_pitch + (tile_x + tx);
      vstore4(*(__global const float4*)(input + i), 0, tile + ty * tile_width + tx);
    }
  }
#else
  // flat (-D FLAT_COPY): the tile as one list of float4s dealt out to the
  // work-items in turn, so that each copies the same number (give or take
  // one) whatever the tile's width, unrolled by four so that four loads are
  // in flight before their stores.
  const int row4 = tile_width / 4;
#pragma unroll 4
  for (int k = ly * get_local_size(0) + lx; k < row4 * tile_height; k += get_local_size(0) * get_local_size(1)) {
    const int ty = k / row4, tx = 4 * (k - ty * row4);
    vstore4(*(__global const float4*)(input + (tile_y + ty) * in_pitch + (tile_x + tx)), 0,
            tile + ty * tile_width + tx);
  }
#endif
  // Every work-item of the group must arrive here before any reads the tile.
  barrier(CLK_LOCAL_MEM_FENCE);

  const int x = (get_group_id(0) * get_local_size(0) + lx) * BLOCK_X;
  const int y = (get_group_id(1) * get_local_size(1) + ly) * BLOCK_Y;
#ifndef VECTOR_BLOCK
  // rows: each tile row under the block in registers, reused across the block.
#define ROW_FLOAT4S ((BLOCK_X + F - 1 + 3) / 4)  // the tile row under a block, in float4s
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
          const float w = WEIGHT(r, c);
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
#else
  // vectors (-D VECTOR_BLOCK): output row by of the block is one vector of
  // BLOCK_X sums. Filter tap (r, c) adds w times the BLOCK_X tile values
  // from column c on: one unaligned vector load per vector multiply-add,
  // each weight loaded once for the BLOCK_Y rows.
#define VEC_(n) float##n
#define VEC(n) VEC_(n)
#define VLOAD_(n) vload##n
#define VLOAD(n) VLOAD_(n)
#define VSTORE_(n) vstore##n
#define VSTORE(n) VSTORE_(n)
  VEC(BLOCK_X) vsum[BLOCK_Y];
#pragma unroll
  for (int by = 0; by < BLOCK_Y; by++) vsum[by] = (VEC(BLOCK_X))(0.0f);
#ifdef UNROLL_ROWS
#pragma unroll
#endif
  for (int r = 0; r < F; r++) {
    const int t = (ly * BLOCK_Y + r) * tile_width + lx * BLOCK_X;
#pragma unroll
    for (int c = 0; c < F; c++) {
      const float w = WEIGHT(r, c);
#pragma unroll
      for (int by = 0; by < BLOCK_Y; by++)
        vsum[by] += w * VLOAD(BLOCK_X)(0, tile + t + by * tile_width + c);
    }
  }
#pragma unroll
  for (int by = 0; by < BLOCK_Y; by++) VSTORE(BLOCK_X)(vsum[by], 0, output + (y + by) * out_pitch + x);
#endif
}

#ifdef DIRECT_READS
// Without the tile (--tile off): each work-item reads the BLOCK_Y + F - 1
// rows under its block straight from global memory into registers, then
// runs convolve's rows loop. The tile's job, reading each input from DRAM
// about once, falls to the caches: the work-items along a work-group row
// read neighbouring float4s (one coalesced transaction per warp and row),
// and the rows that blocks above and below share come back from L1 or L2.
// No copy, no barrier, no local memory, so more work-groups fit on a
// compute unit: on the H200 that wins at every width the lesson measures,
// and it is a GPU's default. Step 8's passes use the same idea.
// (F, WEIGHT and ROW_FLOAT4S: as in convolve, with the weights in constant
// memory or inline and the block in rows.)
__kernel void convolve_direct(__global const float* input,   // padded, in_pitch floats per row
                              __constant float* filter,      // F x F, row-major
                              __global float* output,        // whole blocks, out_pitch floats per row
                              const int in_pitch,
                              const int out_pitch) {         // floats per output row
  const int x = get_global_id(0) * BLOCK_X;
  const int y = get_global_id(1) * BLOCK_Y;
  float sum[BLOCK_Y][BLOCK_X];
#pragma unroll
  for (int by = 0; by < BLOCK_Y; by++) {
#pragma unroll
    for (int bx = 0; bx < BLOCK_X; bx++) sum[by][bx] = 0.0f;
  }
#ifdef UNROLL_ROWS
#pragma unroll
#endif
  for (int j = 0; j < BLOCK_Y + F - 1; j++) {
    // x is a multiple of 4 and the pitch of 32, so these loads are aligned.
    __global const float* in = input + (y + j) * in_pitch + x;
    float row[4 * ROW_FLOAT4S];
#pragma unroll
    for (int q = 0; q < ROW_FLOAT4S; q++) vstore4(*(__global const float4*)(in + 4 * q), q, row);
#pragma unroll
    for (int by = 0; by < BLOCK_Y; by++) {
      const int r = j - by;
      if (r >= 0 && r < F) {
#pragma unroll
        for (int c = 0; c < F; c++) {
          const float w = WEIGHT(r, c);
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
#endif
