// Two probes that measure what a device can really do, for the "% of limit"
// columns. They are as simple as a kernel can be, so nothing but the
// hardware limits them.

// Copy bandwidth: one float4 read and one float4 write per work-item.
__kernel void copy_probe(__global const float4* in, __global float4* out) {
  const size_t i = get_global_id(0);
  out[i] = in[i];
}

// FP32 FMA throughput: eight independent chains per work-item hide the FMA
// latency; the result is stored so the compiler cannot drop the work.
__kernel void fma_probe(__global float* out, const float a, const float b, const int iterations) {
  const size_t i = get_global_id(0);
  float x0 = (float)i, x1 = x0 + 1.0f, x2 = x0 + 2.0f, x3 = x0 + 3.0f;
  float x4 = x0 + 4.0f, x5 = x0 + 5.0f, x6 = x0 + 6.0f, x7 = x0 + 7.0f;
  for (int k = 0; k < iterations; ++k) {
#pragma unroll 16
    for (int u = 0; u < 16; ++u) {
      x0 = fma(x0, a, b); x1 = fma(x1, a, b); x2 = fma(x2, a, b); x3 = fma(x3, a, b);
      x4 = fma(x4, a, b); x5 = fma(x5, a, b); x6 = fma(x6, a, b); x7 = fma(x7, a, b);
    }
  }
  out[i] = ((x0 + x1) + (x2 + x3)) + ((x4 + x5) + (x6 + x7));
}
