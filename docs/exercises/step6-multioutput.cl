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
// local-memory values per multiply-add fall from 1 to
// (BLOCK_X + F - 1) * (BLOCK_Y + F - 1) / (BLOCK_X * BLOCK_Y * F * F). The
// block and the width are compile-time constants, so the sums and the row
// live in registers. The launcher sizes the output to whole blocks (row
// pitch a multiple of 4), so blocks are stored as float4s with no range guard.
//
// The host padded the input by the filter's reach, so the work-item at
// (x, y) correlates the F x F window whose top-left corner is input (x, y)
// and needs no border logic at all.

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
