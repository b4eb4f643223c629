// A candidate layout of step 10 for the tuner (docs/step10-fft-tiled.md,
// "Candidates"): each line of the tile whole in one work-item's registers.
// The launcher builds this file after the fused candidate's fused.cl
// (candidates/launch.cpp), for mul() and conj2(); TILE is N.
//
// A work-item holds a column of the pair (N points), so each 1D transform
// is done without a trip through local memory, and the 2D transforms need
// just two exchanges: one between the column and the row transforms, one
// between the row and the column inverses (the fused layout makes six
// round trips).
// N = 8 Q points, Q = N / 8: 16, 32 or 64 (the tuner runs 32 and 64).
// 64 complex floats are 128 registers; 128 would not fit in a work-item's.
#define Q (N / 8)
#define LPITCH (N + 1)  // odd: a row read by consecutive work-items hits distinct banks

float2 times_minus_i(float2 a) { return (float2)(a.y, -a.x); }
float2 times_i(float2 a) { return (float2)(-a.y, a.x); }

// DFTs of 2, 4 and 8 points v[o], v[o + s], ..., in place, in natural
// order: exp(-2 pi i / n) as the root, or its conjugate when inv
// (unnormalized).
void dft2(float2* v, const int o, const int s) {
  const float2 a = v[o], b = v[o + s];
  v[o] = a + b;
  v[o + s] = a - b;
}
void dft4(float2* v, const int o, const int s, const int inv) {
  const float2 x0 = v[o], x1 = v[o + s], x2 = v[o + 2 * s], x3 = v[o + 3 * s];
  const float2 a0 = x0 + x2, a1 = x0 - x2, b0 = x1 + x3;
  const float2 b1 = inv ? times_i(x1 - x3) : times_minus_i(x1 - x3);
  v[o] = a0 + b0;
  v[o + s] = a1 + b1;
  v[o + 2 * s] = a0 - b0;
  v[o + 3 * s] = a1 - b1;
}
void dft8(float2* v, const int o, const int s, const int inv) {
  const float r = 0.70710678118654752f;
  float2 e[4], d[4];  // the even points' DFT and the odd points'
#pragma unroll
  for (int m = 0; m < 4; ++m) {
    e[m] = v[o + 2 * m * s];
    d[m] = v[o + (2 * m + 1) * s];
  }
  dft4(e, 0, 1, inv);
  dft4(d, 0, 1, inv);
  // d[k] times the k-th power of the root of order 8.
  const float2 d1 = d[1], d3 = d[3];
  d[1] = inv ? (float2)(r * (d1.x - d1.y), r * (d1.x + d1.y)) : (float2)(r * (d1.x + d1.y), r * (d1.y - d1.x));
  d[2] = inv ? times_i(d[2]) : times_minus_i(d[2]);
  d[3] = inv ? (float2)(-r * (d3.x + d3.y), r * (d3.x - d3.y)) : (float2)(r * (d3.y - d3.x), -r * (d3.x + d3.y));
#pragma unroll
  for (int k = 0; k < 4; ++k) {
    v[o + k * s] = e[k] + d[k];
    v[o + (k + 4) * s] = e[k] - d[k];
  }
}
void dftq(float2* v, const int o, const int inv) {
#if Q == 8
  dft8(v, o, 1, inv);
#elif Q == 4
  dft4(v, o, 1, inv);
#else
  dft2(v, o, 1);
#endif
}

// The N-point transform of v, natural order in: point n = Q n1 + n2.
// Eight-point DFTs over n1 (one per n2), the twiddles W^(n2 k1), then
// Q-point DFTs over n2 (one per k1). Frequency k1 + 8 k2 ends at position
// Q k1 + k2: freq(p) below. Every index is a constant once the loops are
// unrolled, so v stays in registers.
int freq(int p) { return p / Q + 8 * (p % Q); }
void fft_forward(float2* v, __constant const float2* w) {
#pragma unroll
  for (int n2 = 0; n2 < Q; ++n2) dft8(v, n2, Q, 0);
#pragma unroll
  for (int k1 = 1; k1 < 8; ++k1)
#pragma unroll
    for (int n2 = 1; n2 < Q; ++n2) v[Q * k1 + n2] = mul(v[Q * k1 + n2], w[n2 * k1]);
#pragma unroll
  for (int k1 = 0; k1 < 8; ++k1) dftq(v, Q * k1, 0);
}
// Its inverse times N, the same steps backwards and conjugated: frequency
// freq(p) at position p in, natural order out.
void fft_inverse(float2* v, __constant const float2* w) {
#pragma unroll
  for (int k1 = 0; k1 < 8; ++k1) dftq(v, Q * k1, 1);
#pragma unroll
  for (int k1 = 1; k1 < 8; ++k1)
#pragma unroll
    for (int n2 = 1; n2 < Q; ++n2) v[Q * k1 + n2] = mul(v[Q * k1 + n2], conj2(w[n2 * k1]));
#pragma unroll
  for (int n2 = 0; n2 < Q; ++n2) dft8(v, n2, Q, 1);
}

// Work-item lid takes lines lid, lid + ITEMS, ... under count. With
// ITEMS >= N (the default is N) that is one line or none, and the loop is
// written so that the compiler sees it run at most once: as a loop that
// might run again, NVIDIA's compiler gave the kernel 255 registers instead
// of 242 and it took 11 % longer at F = 31 on the H100 (one run, with V
// still an argument; with V a constant it has 212).
#if ITEMS >= N
#define FOR_LINES(i, count) for (int i = lid; i < (count); i = (count))
#else
#define FOR_LINES(i, count) for (int i = lid; i < (count); i += ITEMS)
#endif

// One work-group per pair of tiles, as in convolve.cl: tile A in the real
// parts, B (V pixels to the right) in the imaginary parts. The launcher
// builds this kernel for one filter width: VALID = V = N - F + 1 is a
// constant, so the compiler drops the arithmetic of the points no output
// reads (the row inverses' columns x >= V, the column inverses' rows
// y >= V) and knows the last loop's count. On the H100 the 64-point tile
// took 2 to 10 % less time than with V an argument, from F = 3 to 31 (one
// run, 2026-11-27).
__kernel __attribute__((reqd_work_group_size(ITEMS, 1, 1))) void convolve_registers(
                                 __global const float* input, const int in_width, const int in_height,
                                 __global float* output, const int out_width, const int out_height,
                                 __global const float2* filter_spectrum,  // N x N, [kx][ky]: conj(DFT(K)) / N^2
                                 __constant float2* twiddles,             // N: W^j = exp(-2 pi i j / N)
                                 const int pairs_x) {
  __local float2 t[N * LPITCH];
  const int lid = get_local_id(0), pair = get_group_id(0);
  const int ox = 2 * (pair % pairs_x) * VALID, oy = (pair / pairs_x) * VALID;

  // 1. Column c of both tiles and its transform; frequency ky of it to
  //    t[ky][c].
  FOR_LINES(c, N) {
    float2 v[N];
    const int xa = ox + c, xb = ox + VALID + c;
#pragma unroll
    for (int y = 0; y < N; ++y) {
      const int gy = oy + y;
      v[y] = (float2)(0.0f, 0.0f);
      if (gy < in_height) {
        if (xa < in_width) v[y].x = input[gy * in_width + xa];
        if (xb < in_width) v[y].y = input[gy * in_width + xb];
      }
    }
    fft_forward(v, twiddles);
#pragma unroll
    for (int p = 0; p < N; ++p) t[freq(p) * LPITCH + c] = v[p];
  }
  barrier(CLK_LOCAL_MEM_FENCE);

  // 2. Row r (ky = r, every column in natural order): its transform, the
  //    product (frequency (r, freq(p))) and its inverse. Row r of t is
  //    this work-item's alone: it writes back the columns x < V, the only
  //    ones the outputs read.
  FOR_LINES(r, N) {
    float2 v[N];
#pragma unroll
    for (int x = 0; x < N; ++x) v[x] = t[r * LPITCH + x];
    fft_forward(v, twiddles);
#pragma unroll
    for (int p = 0; p < N; ++p) v[p] = mul(v[p], filter_spectrum[freq(p) * N + r]);
    fft_inverse(v, twiddles);
#pragma unroll
    for (int x = 0; x < N; ++x)
      if (x < VALID) t[r * LPITCH + x] = v[x];
  }
  barrier(CLK_LOCAL_MEM_FENCE);

  // 3. Column c < V, frequency ky = freq(p) at position p: its inverse,
  //    and the outputs y < V of both tiles.
  FOR_LINES(c, VALID) {
    float2 v[N];
#pragma unroll
    for (int p = 0; p < N; ++p) v[p] = t[freq(p) * LPITCH + c];
    fft_inverse(v, twiddles);
#pragma unroll
    for (int y = 0; y < N; ++y) {
      const int gy = oy + y;
      if (y >= VALID || gy >= out_height) break;
      if (ox + c < out_width) output[gy * out_width + ox + c] = v[y].x;
      if (ox + VALID + c < out_width) output[gy * out_width + ox + VALID + c] = v[y].y;
    }
  }
}
