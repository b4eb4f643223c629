// Exercise, step 9 (docs/step9-fft.md, docs/coursework.md). Write the bodies
// of the three kernels below; VkFFT does the transforms between them. As
// handed out, this file builds but computes nothing, so every conformance
// case of step 9 fails. Work on a copy in the repository root and grade the
// copy:
//   cp docs/exercises/step9-fft.cl my-step9.cl
//   CLCONV_KERNEL_STEP9=$PWD/my-step9.cl ctest --preset default -L step9
//
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
  // TODO 1. One work-item per float of the transform's buffer (the range is
  // rounded up: guard x < row_floats, y < rows): the input where it has a
  // pixel, 0 everywhere else.
}

__kernel void convolve(__global float2* spectrum,              // the image's, overwritten
                       __global const float2* filter_spectrum,
                       const int count,                         // complex values
                       const float scale) {                     // 1 / (P Q): VkFFT's inverse is unnormalized
  // TODO 2. One complex value per work-item (guard i < count): the image's
  // times the conjugate of the filter's (correlation), times scale.
}

__kernel void crop(__global const float* spectrum,  // after the inverse: reals, row_floats per row
                   const int row_floats,
                   __global float* output,          // out_width x out_height, dense
                   const int out_width, const int out_height) {
  // TODO 3. The out_width x out_height corner of the result into the output.
}
