// Exercise, step 6 (docs/step6-multioutput.md, docs/coursework.md). Write the
// body of convolve() below. As handed out, this file builds but computes
// nothing, so every conformance case of step 6 fails. The suite runs several
// block shapes. Work on a copy in the
// repository root and grade the copy:
//   cp docs/exercises/step6-multioutput.cl my-step6.cl
//   CLCONV_KERNEL_STEP6=$PWD/my-step6.cl ctest --preset default -L step6
//
// The launcher builds it with -D FILTER_WIDTH=F -D BLOCK_X=.. -D BLOCK_Y=..
// BLOCK_X is a multiple of 4.
//
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
  // TODO 1. Copy the group's window into the tile as step 5 does with
  // aligned rows; the window now starts at column
  // group_id(0) * local_size(0) * BLOCK_X and row
  // group_id(1) * local_size(1) * BLOCK_Y. Then the barrier. There is no
  // range guard at all: the output buffer covers whole blocks.

#define F FILTER_WIDTH
#define ROW_FLOAT4S ((BLOCK_X + F - 1 + 3) / 4)  // the tile row under a block, in float4s
  // TODO 2. float sum[BLOCK_Y][BLOCK_X], all zero.
  // TODO 3. For each of the BLOCK_Y + F - 1 tile rows j under the block:
  // copy the row's
  // 4 * ROW_FLOAT4S floats from the tile into a private array, starting at
  // tile row ly * BLOCK_Y + j, column lx * BLOCK_X. Tile row j meets output
  // row by of the block through filter row r = j - by, when 0 <= r < F:
  // add filter[r][c] * row[bx + c] to sum[by][bx] for every c and bx.
  // Unroll every loop over BLOCK_X, BLOCK_Y and F, so that sum and the row
  // stay in registers.
  // TODO 4. Store the block at output row (group row of this work-item) *
  // BLOCK_Y + by, column (its group column) * BLOCK_X, as BLOCK_X / 4
  // float4s per row (out_pitch floats per row), with no guard.
}
