// Exercise, step 6 (docs/step6-multioutput.md, docs/coursework.md). Write the
// body of convolve() below. As handed out, this file builds but computes
// nothing, so every conformance case of step 6 fails. The suite runs several
// block shapes, with the row loop unrolled and not. Work on a copy in the
// repository root and grade the copy:
//   cp docs/exercises/step6-multioutput.cl my-step6.cl
//   CLCONV_KERNEL_STEP6=$PWD/my-step6.cl ctest --preset default -L step6
//
// The launcher builds it with -D FILTER_WIDTH=F -D BLOCK_X=.. -D BLOCK_Y=..,
// and -D UNROLL_ROWS for small filters. BLOCK_X is a multiple of 4.
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
  // TODO 1. Copy the group's window into the tile as step 5 does with
  // aligned rows; the window now starts at column
  // group_id(0) * local_size(0) * BLOCK_X and row
  // group_id(1) * local_size(1) * BLOCK_Y. Then the barrier. There is no
  // range guard at all: the output buffer covers whole blocks.

#define F FILTER_WIDTH
#define ROW_FLOAT4S ((BLOCK_X + F - 1 + 3) / 4)  // the tile row under a block, in float4s
  // TODO 2. float sum[BLOCK_Y][BLOCK_X], all zero.
  // TODO 3. For each of the BLOCK_Y + F - 1 tile rows j under the block
  // (unrolled too when UNROLL_ROWS is defined): copy the row's
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
  // Optional, and not graded: a --kernel file stands for convolve() alone,
  // so --tile off (which runs this kernel) is refused with one. To try it,
  // write it in step6-multioutput/convolve.cl itself and rebuild.
  // TODO 5. The same block as convolve() without the tile: read the
  // BLOCK_Y + F - 1 rows under the block straight from `input` (aligned
  // float4 loads at column x, row y + j), then the same sums and stores.
}
#endif
