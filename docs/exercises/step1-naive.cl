// Exercise, step 1 (docs/step1-naive.md, docs/coursework.md). Write the body
// of convolve() below. As handed out, this file builds but computes nothing,
// so every conformance case of step 1 fails. Work on a copy in the repository
// root and grade the copy:
//   cp docs/exercises/step1-naive.cl my-step1.cl
//   CLCONV_KERNEL_STEP1=$PWD/my-step1.cl ctest --preset default -L step1
//
// Step 1: the naive kernel (docs/step1-naive.md). One work-item computes one
// output pixel, reading the image and the filter straight from global memory.
//
// The host padded the input by the filter's reach, so the work-item at
// (x, y) correlates the F x F window whose top-left corner is input (x, y)
// and needs no border logic at all.

__kernel void convolve(__global const float* input,   // padded, in_pitch floats per row
                       __global const float* filter,  // F x F, row-major
                       __global float* output,        // out_width x out_height
                       const int in_pitch,
                       const int out_width,
                       const int out_height,
                       const int filter_width) {
  // TODO
  // 1. This work-item's output pixel (x, y): its global ids in dimensions
  //    0 and 1.
  // 2. The launcher rounds the global range up to whole work-groups, so some
  //    work-items lie past out_width x out_height: they must return without
  //    writing anything.
  // 3. Sum filter[r][c] * input[y + r][x + c] over the F x F window
  //    (F = filter_width). Input rows are in_pitch floats apart, filter rows
  //    F floats apart. Correlation: the filter is not flipped.
  // 4. Store the sum at output[y][x]; output rows are out_width floats apart.
}
