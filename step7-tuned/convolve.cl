// Step 7: step 6's kernel with every choice a device makes differently a
// build switch, so that a tuner can search them (docs/step7-tuned.md):
//   -D WEIGHTS_LOCAL   the weights copied into local memory, each filter row
//                      padded to whole float4s (four weights per load);
//   -D WEIGHTS_INLINE  the weights compiled in: the launcher puts
//                      "#define FILTER_VALUES w0, w1, ..." in front of this
//                      source, a program-scope __constant array whose every
//                      index is a compile-time constant once the loops are
//                      unrolled, so each weight can become an operand;
//   -D FLAT_COPY       the tile's float4s dealt out to the work-items in turn;
//   -D VECTOR_BLOCK    each block row one floatN (N = BLOCK_X), a CPU's shape;
//   -D UNROLL_ROWS     the loop over tile rows unrolled too;
//   -D DIRECT_READS    adds convolve_direct: the same blocks without the
//                      tile, each block's rows read through the caches
//                      (the weights in any of the three places).
// Without switches it is step 6's kernel. The register-block loop is
// written once (add_tile_row), for both kernels.

#define F FILTER_WIDTH

#if defined(__clang__) && defined(__x86_64__) && defined(VECTOR_BLOCK)
// A float16 block on a CPU without 512-bit registers: clang notes that such
// vectors are passed differently there (-Wpsabi), which is harmless within
// one program, and PoCL would print "2 warnings generated." at every build.
#pragma clang diagnostic ignored "-Wpsabi"
#endif
#define ROW_FLOAT4S ((BLOCK_X + F - 1 + 3) / 4)  // the tile row under a block, in float4s

// Where the loops read weight (r, c): one of three places, chosen at build.
#if defined(WEIGHTS_INLINE)
__constant float inline_weights[F * F] = {FILTER_VALUES};
#define WEIGHTS_PARAM __constant const float* weights  // unused: the array above
#define WEIGHT(r, c) inline_weights[(r) * F + (c)]
#elif defined(WEIGHTS_LOCAL)
#define WEIGHTS_PITCH (4 * ((F + 3) / 4))  // a filter row, padded to whole float4s
#define WEIGHTS_PARAM __local const float* weights
#define WEIGHT(r, c) weights[(r) * WEIGHTS_PITCH + (c)]
// The work-group copies the filter into local memory, each row padded with
// zeros to whole float4s; the caller's barrier makes it visible to all.
inline void copy_weights(__local float* weights, __constant const float* filter) {
  for (int i = get_local_id(1) * get_local_size(0) + get_local_id(0); i < F * WEIGHTS_PITCH;
       i += get_local_size(0) * get_local_size(1)) {
    const int r = i / WEIGHTS_PITCH, c = i % WEIGHTS_PITCH;
    weights[i] = c < F ? filter[r * F + c] : 0.0f;
  }
}
#else
#define WEIGHTS_PARAM __constant const float* weights
#define WEIGHT(r, c) weights[(r) * F + (c)]
#endif

inline void zero_block(float sum[BLOCK_Y][BLOCK_X]) {
#pragma unroll
  for (int by = 0; by < BLOCK_Y; by++) {
#pragma unroll
    for (int bx = 0; bx < BLOCK_X; bx++) sum[by][bx] = 0.0f;
  }
}

// The register-block loop, once: tile row j of the block (in registers,
// `row`) meets output row by through filter row j - by, and adds its
// products into the block's sums.
inline void add_tile_row(float sum[BLOCK_Y][BLOCK_X], const float* row, const int j, WEIGHTS_PARAM) {
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

// The block's sums, stored as float4s (the output is whole blocks).
inline void store_block(float sum[BLOCK_Y][BLOCK_X], __global float* output, const int x, const int y,
                        const int out_pitch) {
#pragma unroll
  for (int by = 0; by < BLOCK_Y; by++) {
#pragma unroll
    for (int q = 0; q < BLOCK_X / 4; q++) {
      const float4 v = (float4)(sum[by][4 * q], sum[by][4 * q + 1], sum[by][4 * q + 2], sum[by][4 * q + 3]);
      *(__global float4*)(output + (y + by) * out_pitch + x + 4 * q) = v;
    }
  }
}

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
#if defined(WEIGHTS_LOCAL)
  __local float4 weights4[F * WEIGHTS_PITCH / 4];
  __local float* weights = (__local float*)weights4;
  copy_weights(weights, filter);  // the tile's barrier below covers it
#else
  __constant const float* weights = filter;
#endif

  // Copy the tile and its halo. The tile is larger than the work-group, so
  // each work-item loads several float4s.
  const int tile_x = get_group_id(0) * get_local_size(0) * BLOCK_X;
  const int tile_y = get_group_id(1) * get_local_size(1) * BLOCK_Y;
#ifndef FLAT_COPY
  // rows: as step 6, whole rows of float4s per work-item row.
  for (int ty = ly; ty < tile_height; ty += get_local_size(1)) {
    for (int tx = 4 * lx; tx < tile_width; tx += 4 * get_local_size(0)) {
      const int i = (tile_y + ty) * in_pitch + (tile_x + tx);
      vstore4(*(__global const float4*)(input + i), 0, tile + ty * tile_width + tx);
    }
  }
#else
  // flat: the tile as one list of float4s dealt out to the work-items in
  // turn, so that each copies the same number (give or take one) whatever
  // the tile's width, four loads in flight before their stores.
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

  const int x = get_global_id(0) * BLOCK_X;
  const int y = get_global_id(1) * BLOCK_Y;
#ifndef VECTOR_BLOCK
  // rows: each tile row under the block in registers, reused across the block.
  float sum[BLOCK_Y][BLOCK_X];
  zero_block(sum);
#ifdef UNROLL_ROWS
#pragma unroll
#endif
  for (int j = 0; j < BLOCK_Y + F - 1; j++) {
    float row[4 * ROW_FLOAT4S];
    const int t = (ly * BLOCK_Y + j) * tile_width + lx * BLOCK_X;
#pragma unroll
    for (int q = 0; q < ROW_FLOAT4S; q++) vstore4(vload4(q, tile + t), q, row);
    add_tile_row(sum, row, j, weights);
  }
  store_block(sum, output, x, y, out_pitch);
#else
  // vectors: output row by of the block is one vector of BLOCK_X sums. Tap
  // (r, c) adds w times the BLOCK_X tile values from column c on: one
  // unaligned vector load per vector multiply-add, each weight loaded once
  // for the BLOCK_Y rows.
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
// runs the same register-block loop. The tile's job, reading each input
// from DRAM about once, falls to the caches: the work-items along a
// work-group row read neighbouring float4s, and the rows that blocks above
// and below share come back from L1 or L2. No tile copy and no local memory
// but the weights' (if there), so more work-groups fit on a compute unit.
__kernel void convolve_direct(__global const float* input,   // padded, in_pitch floats per row
                              __constant float* filter,      // F x F, row-major
                              __global float* output,        // whole blocks, out_pitch floats per row
                              const int in_pitch,
                              const int out_pitch) {         // floats per output row
#if defined(WEIGHTS_LOCAL)
  __local float4 weights4[F * WEIGHTS_PITCH / 4];
  __local float* weights = (__local float*)weights4;
  copy_weights(weights, filter);
  barrier(CLK_LOCAL_MEM_FENCE);  // the weights' only local memory
#else
  __constant const float* weights = filter;
#endif
  const int x = get_global_id(0) * BLOCK_X;
  const int y = get_global_id(1) * BLOCK_Y;
  float sum[BLOCK_Y][BLOCK_X];
  zero_block(sum);
#ifdef UNROLL_ROWS
#pragma unroll
#endif
  for (int j = 0; j < BLOCK_Y + F - 1; j++) {
    // x is a multiple of 4 and the pitch of 32, so these loads are aligned.
    __global const float* in = input + (y + j) * in_pitch + x;
    float row[4 * ROW_FLOAT4S];
#pragma unroll
    for (int q = 0; q < ROW_FLOAT4S; q++) vstore4(*(__global const float4*)(in + 4 * q), q, row);
    add_tile_row(sum, row, j, weights);
  }
  store_block(sum, output, x, y, out_pitch);
}
#endif
