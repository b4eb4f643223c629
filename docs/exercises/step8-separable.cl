// Exercise, step 8 (docs/step8-separable.md, docs/coursework.md). Write the
// body of convolve() below: one pass, which the launcher runs twice per
// term of the filter (a row pass and a column pass). As handed out, this
// file builds but computes nothing, so every conformance case of step 8
// that runs it fails. The suite runs filters of rank 1, 2 and full rank
// (the column passes after the first add to the output). The candidate
// kernels of the tuner (step8-separable/candidates/) are the step's own
// and are not graded. Work on a copy in the repository root and grade the
// copy:
//   cp docs/exercises/step8-separable.cl my-step8.cl
//   CLCONV_KERNEL_STEP8=$PWD/my-step8.cl ctest --preset default -L step8
//
// The launcher builds it with -D FILTER_WIDTH=F -D TAPS_X=.. -D TAPS_Y=..
// -D BLOCK_X=.. -D BLOCK_Y=.. and -D UNROLL_ROWS (unless --unroll off): the
// row pass has TAPS_X = F, TAPS_Y = 1; the column pass TAPS_X = 1,
// TAPS_Y = F. BLOCK_X is a multiple of 4. The functions above the kernel
// are given (the candidates call them too).
//
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
  // TODO 1. Step 6's tile copy: the group's window (its blocks plus
  // TAPS_X - 1 columns and TAPS_Y - 1 rows, tile_width x tile_height
  // floats) with aligned float4 loads, then the barrier. No range guard:
  // the output buffer covers whole blocks.
  // TODO 2. float sum[BLOCK_Y][BLOCK_X], all zero. For each of the
  // BLOCK_Y + TAPS_Y - 1 tile rows j under the block (the loop unrolled
  // when UNROLL_ROWS is defined): copy its 4 * ROW_FLOAT4S floats from
  // tile row ly * BLOCK_Y + j, column lx * BLOCK_X, into a private array,
  // and add_tile_row() it to the sums.
  // TODO 3. store_block() the sums at this work-item's block, adding to
  // the output when `accumulate` is set (the earlier terms' sum).
}
