// Exercise, step 5 (docs/step5-vector.md, docs/coursework.md). Write the body
// of convolve() below. As handed out, this file builds but computes nothing,
// so every conformance case of step 5 fails. The suite runs float4 and scalar
// loads, rows aligned and not, so every branch below must be filled in. Work
// on a copy in the repository root and grade the copy:
//   cp docs/exercises/step5-vector.cl my-step5.cl
//   CLCONV_KERNEL_STEP5=$PWD/my-step5.cl ctest --preset default -L step5
//
// Step 5: the tile copied with float4 loads (docs/step5-vector.md). The
// launcher pads each row of the device image to 32 floats (128 bytes,
// --aligned on), so each load is one aligned 16-byte transaction, and leaves
// room after the image so that whole float4s never leave the buffer: the
// copy needs no bounds test. The rest is step 4's kernel, width compiled in.

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
