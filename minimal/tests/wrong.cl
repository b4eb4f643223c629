// Step 1's kernel with one bug, for minimal/'s test: its check must fail.

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
  for (int r = 0; r < filter_width - 1; r++) {  // wrong on purpose: misses the last filter row
    const int f = r * filter_width;               // first weight of filter row r
    const int i = (y + r) * in_pitch + x;         // first input pixel under it
    for (int c = 0; c < filter_width; c++) {
      sum += filter[f + c] * input[i + c];
    }
  }
  output[y * out_width + x] = sum;
}
