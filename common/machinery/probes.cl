// Two probes that measure what a device can really do, for the "% of limit"
// columns. They are as simple as a kernel can be, so nothing but the
// hardware limits them.

// Copy bandwidth: one float4 read and one float4 write per work-item.
__kernel void copy_probe(__global const float4* in, __global float4* out) {
  const size_t i = get_global_id(0);
  out[i] = in[i];
}

// FP32 FMA throughput: eight independent float8 chains per work-item hide
// the FMA latency on a GPU (64 registers) and fill the SIMD lanes of a CPU
// (one AVX register per chain); the result is stored so the compiler cannot
// drop the work. 8 chains x 8 lanes x 16 unrolled steps = 1024 FMA per
// iteration of k.
__kernel void fma_probe(__global float* out, const float a, const float b, const int iterations) {
  const size_t i = get_global_id(0);
  const float8 lanes = (float8)(0.0f, 1.0f, 2.0f, 3.0f, 4.0f, 5.0f, 6.0f, 7.0f);
  float8 x0 = (float)i + lanes, x1 = x0 + 1.0f, x2 = x0 + 2.0f, x3 = x0 + 3.0f;
  float8 x4 = x0 + 4.0f, x5 = x0 + 5.0f, x6 = x0 + 6.0f, x7 = x0 + 7.0f;
  const float8 va = (float8)(a), vb = (float8)(b);
  for (int k = 0; k < iterations; ++k) {
#pragma unroll 16
    for (int u = 0; u < 16; ++u) {
      x0 = fma(x0, va, vb); x1 = fma(x1, va, vb); x2 = fma(x2, va, vb); x3 = fma(x3, va, vb);
      x4 = fma(x4, va, vb); x5 = fma(x5, va, vb); x6 = fma(x6, va, vb); x7 = fma(x7, va, vb);
    }
  }
  const float8 s = ((x0 + x1) + (x2 + x3)) + ((x4 + x5) + (x6 + x7));
  out[i] = ((s.s0 + s.s1) + (s.s2 + s.s3)) + ((s.s4 + s.s5) + (s.s6 + s.s7));
}
