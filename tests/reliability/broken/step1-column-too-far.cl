// BROKEN ON PURPOSE (docs/reliability.md): step 1's kernel reading one column
// too far, an off-by-one in the window. Every pixel is wrong, but only the
// last work-item reads past the end of the input buffer: the rest read the
// next row's first pixel, which is inside the buffer and goes unnoticed.
__kernel void convolve(__global const float* input,
                       __global const float* filter,
                       __global float* output,
                       const int in_pitch,
                       const int out_width,
                       const int out_height,
                       const int filter_width) {
  const int x = get_global_id(0);
  const int y = get_global_id(1);
  if (x >= out_width || y >= out_height) return;

  float sum = 0.0f;
  for (int r = 0; r < filter_width; r++) {
    for (int c = 0; c < filter_width; c++) {
      // The bug: x + c + 1 where the window is x + c.
      sum += filter[r * filter_width + c] * input[(y + r) * in_pitch + (x + c + 1)];
    }
  }
  output[y * out_width + x] = sum;
}
