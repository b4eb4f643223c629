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
