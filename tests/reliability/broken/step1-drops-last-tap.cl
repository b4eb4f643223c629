// BROKEN ON PURPOSE (docs/reliability.md): step 1's kernel skipping the
// last tap of the filter. One term of F * F is missing from every output;
// --verify must notice at every filter width the tools accept (1 to 127).
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
    for (int c = 0; c < filter_width; c++) {
      if (r == filter_width - 1 && c == filter_width - 1) break;  // BROKEN: the last tap
      sum += filter[r * filter_width + c] * input[(y + r) * in_pitch + (x + c)];
    }
  }
  output[y * out_width + x] = sum;
}
