// Step 9: correlation through the FFT. Steps 1-8 do F x F (or 2F) multiply-
// adds per output; a transform does about 2 log2(P Q) of them per pixel
// whatever F is. Correlating with K is multiplying the image's spectrum by
// the conjugate of K's spectrum, pointwise:
//   load_padded  the padded image into a P x Q real array, zeros around it
//                (P and Q: sizes the FFT library does fast, at least the
//                padded image's, so the circular wrap never reaches a
//                valid output);
//   (VkFFT)      forward real-to-complex transform, in place;
//   convolve     X * conj(K) / (P Q), one complex product per frequency:
//                the convolution theorem's product (conjugated: correlation);
//   (VkFFT)      inverse complex-to-real transform, in place;
//   crop         the valid out_width x out_height corner into the output.
// The filter's spectrum is computed once, when the launch is prepared.
// Each real row of P floats occupies row_floats = 2 (P / 2 + 1) in the
// transform's buffer (the complex row it becomes).

__kernel void load_padded(__global const float* input,  // the padded image, dense
                          const int in_width, const int in_height,
                          __global float* spectrum,     // row_floats x rows
                          const int row_floats, const int rows) {
  const int x = get_global_id(0);
  const int y = get_global_id(1);
  if (x >= row_floats || y >= rows) return;
  spectrum[y * row_floats + x] = (x < in_width && y < in_height) ? input[y * in_width + x] : 0.0f;
}

__kernel void convolve(__global float2* spectrum,              // the image's, overwritten
                       __global const float2* filter_spectrum,
                       const int count,                         // complex values
                       const float scale) {                     // 1 / (P Q): VkFFT's inverse is unnormalized
  const int i = get_global_id(0);
  if (i >= count) return;
  const float2 a = spectrum[i], k = filter_spectrum[i];
  // a * conj(k): correlation, not convolution
  spectrum[i] = scale * (float2)(a.x * k.x + a.y * k.y, a.y * k.x - a.x * k.y);
}

__kernel void crop(__global const float* spectrum,  // after the inverse: reals, row_floats per row
                   const int row_floats,
                   __global float* output,          // out_width x out_height, dense
                   const int out_width, const int out_height) {
  const int x = get_global_id(0);
  const int y = get_global_id(1);
  if (x >= out_width || y >= out_height) return;
  output[y * out_width + x] = spectrum[y * row_floats + x];
}
