// BROKEN ON PURPOSE (docs/reliability.md): step 1's kernel without its
// range guard. The global size is rounded up to whole work-groups, so the
// work-items past the image write past the end of the output buffer; the
// harness's guard bands catch it ("wrote past the end of the output:
// element N (row y, column x ...)").
__kernel void convolve(__global const float* input,   // padded, in_pitch floats per row
                       __global const float* filter,  // F x F, row-major
                       __global float* output,        // out_width x out_height
                       const int in_pitch,
                       const int out_width,
                       const int out_height,
                       const int filter_width) {
  const int x = get_global_id(0);
  const int y = get_global_id(1);

  float sum = 0.0f;
  for (int r = 0; r < filter_width; r++) {
    for (int c = 0; c < filter_width; c++) {
      sum += filter[r * filter_width + c] * input[(y + r) * in_pitch + (x + c)];
    }
  }
  output[y * out_width + x] = sum;
}
