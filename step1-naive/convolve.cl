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
  const int x = get_global_id(0);
  const int y = get_global_id(1);

  // The global size was rounded up to a multiple of the work-group, so the
  // last groups have work-items past the image: they must do nothing.
  if (x >= out_width || y >= out_height) return;

  float sum = 0.0f;
  for (int r = 0; r < filter_width; r++) {
    const int f = r * filter_width;               // first weight of filter row r
    const int i = (y + r) * in_pitch + x;         // first input pixel under it
    for (int c = 0; c < filter_width; c++) {
      sum += filter[f + c] * input[i + c];
    }
  }
  output[y * out_width + x] = sum;
}
