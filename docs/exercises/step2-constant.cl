// Exercise, step 2 (docs/step2-constant.md, docs/coursework.md). Write the
// body of convolve() below. As handed out, this file builds but computes
// nothing, so every conformance case of step 2 fails. Work on a copy in the
// repository root and grade the copy:
//   cp docs/exercises/step2-constant.cl my-step2.cl
//   CLCONV_KERNEL_STEP2=$PWD/my-step2.cl ctest --preset default -L step2
//
// Step 2: the filter moves to __constant memory (docs/step2-constant.md).
// Every work-item of a work-group reads the same filter weight at the same
// time; constant memory is cached and broadcasts one value to all of them in
// one transaction. The rest is step 1's kernel.

__kernel void convolve(__global const float* input,   // padded, in_pitch floats per row
                       __constant float* filter,      // F x F, row-major
                       __global float* output,        // out_width x out_height
                       const int in_pitch,
                       const int out_width,
                       const int out_height,
                       const int filter_width) {
  // TODO: the body is step 1's; only the filter's address space changed.
  // 1. This work-item's output pixel (x, y) from its global ids.
  // 2. Work-items past out_width x out_height (the range is rounded up to
  //    whole work-groups) return without writing.
  // 3. Sum filter[r][c] * input[y + r][x + c] over the F x F window
  //    (F = filter_width; input rows are in_pitch floats apart).
  // 4. Store the sum at output[y][x] (rows out_width floats apart).
}
