// Exercise, step 5 (docs/step5-vector.md, docs/coursework.md). Write the body
// of convolve() below. As handed out, this file builds but computes nothing,
// so every conformance case of step 5 fails. The suite runs float4 and scalar
// loads, rows aligned and not, so every branch below must be filled in. Work
// on a copy in the repository root and grade the copy:
//   cp docs/exercises/step5-vector.cl my-step5.cl
//   CLCONV_KERNEL_STEP5=$PWD/my-step5.cl ctest --preset default -L step5
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
// The host padded the input by the filter's reach, so the work-item at
// (x, y) correlates the F x F window whose top-left corner is input (x, y)
// and needs no border logic at all.

__kernel void convolve(__global const float* input,   // padded, in_pitch floats per row
                       __constant float* filter,      // F x F, row-major
                       __global float* output,        // out_width x out_height
                       const int in_pitch,
                       const int out_width,
                       const int out_height,
                       __local float* tile,           // tile_width x tile_height
                       const int tile_width,          // work-group width + F - 1, to a multiple of 4
                       const int tile_height) {       // work-group height + F - 1
  // TODO 1. Ids, and the group's window origin, as in step 3.
  // TODO 2. Copy the window four floats at a time: columns from 4 * lx,
  // striding by 4 * local_size(0); rows from ly, striding by local_size(1).
  // No bounds test: the launcher's buffer has room for every whole float4.
  // The four floats at input index i go to the tile as:
#if defined(SCALAR_LOADS)
  //   scalar: four separate float loads and stores (the baseline).
#elif defined(ALIGNED_PITCH)
  //   float4, aligned rows: i is a multiple of 4, so reading the float4 at
  //   (__global const float4*)(input + i) is legal; vstore4 it into the tile.
#else
  //   float4, unaligned rows (--aligned off): i may be any index, so read
  //   with vload4, which accepts any alignment of a float pointer.
#endif
  // TODO 3. barrier(CLK_LOCAL_MEM_FENCE), then the range guard.

#define F FILTER_WIDTH  // the launcher always builds with -D FILTER_WIDTH=F
  // TODO 4. Correlate from the tile as step 4's "fixed" variant does (both
  // loops over F, unrolled), and store the sum at output[y][x].
}
