// A candidate layout of step 10 for the tuner (docs/step10-fft-tiled.md,
// "Candidates"): a tile of 2N x 2N points when local memory holds only
// N x N. The launcher builds this file after the fused candidate's
// fused.cl (candidates/launch.cpp), whose passes it reuses with stride 2:
// TILE is N, the sub-tile's size.
//
// The first stage of decimation in time, done last, in registers.
// Sub-tile (p, s) is the tile's pixels (2 x + s, 2 y + p); its N x N
// transform S_ps goes through local memory as in convolve_fused, one
// sub-tile after another, and each work-item keeps its points of the last
// column pass in registers, the same points (ky, kx) of all four
// sub-tiles. The 2N x 2N spectrum at (ky + N a, kx + N b), a, b in
// {0, 1}, is then
//   X_ab = sum over p, s of (-1)^(p a + s b) W^(p ky + s kx) S_ps,
// W = exp(-2 pi i / 2N): a 2 x 2 butterfly with twiddles, in registers. The
// product with the filter's spectrum follows, and the same butterfly
// backwards gives each sub-tile's share of the inverse, which goes back
// through local memory to the outputs (2 x + s, 2 y + p).
//
// BUTTERFLIES is how many butterflies of the last column pass each
// work-item does. Its registers hold 32 points per butterfly.
// reqd_work_group_size tells the compiler the size, so that it budgets
// registers for exactly that many work-items: NVIDIA's otherwise assumes
// 256 of them and gives each more (175 registers on the H100, too many for
// 512; 128 with the promise).
#define BUTTERFLIES ((N * N / 8 + ITEMS - 1) / ITEMS)
__kernel __attribute__((reqd_work_group_size(ITEMS, 1, 1))) void convolve_split(
                             __global const float* input, const int in_width, const int in_height,
                             __global float* output, const int out_width, const int out_height,
                             __global const float2* filter_spectrum,  // 2N x 2N: conj(DFT(K)) / (2N)^2
                             __global const float2* twiddles,         // N / 2: exp(-2 pi i j / N)
                             __global const float2* twiddles2,        // N: exp(-2 pi i j / 2N)
                             const int valid,                         // V = 2N - F + 1
                             const int pairs_x) {
  __local float2 t[N * PITCH];
  __local float2 w[N / 2];
  const int lid = get_local_id(0), items = ITEMS;
  const int pair = get_group_id(0);
  const int ox = 2 * (pair % pairs_x) * valid, oy = (pair / pairs_x) * valid;
  for (int j = lid; j < N / 2; j += items) w[j] = twiddles[j];
  barrier(CLK_LOCAL_MEM_FENCE);

  const int R = 8, s = pass_span(PASSES - 1);
  float2 z[4][BUTTERFLIES][8];  // [2 p + s][butterfly][point]

  // 1. Each sub-tile's forward transform, the last column pass into z.
#pragma unroll
  for (int ps = 0; ps < 4; ++ps) {
    load_first_pass(t, w, input, in_width, in_height, ox, oy, valid, 2, ps & 1, ps >> 1);
#pragma unroll
    for (int p = 1; p < PASSES; ++p) pass(t, w, 1, p, 0, N);
#pragma unroll
    for (int p = 0; p < PASSES - 1; ++p) pass(t, w, 0, p, 0, N);
#pragma unroll
    for (int b = 0; b < BUTTERFLIES; ++b) {
      const int q = lid + b * items;
      if (q >= N * N / R) continue;
      int line, base, k;
      butterfly_of(q, R, s, 0, &line, &base, &k);
#pragma unroll
      for (int m = 0; m < R; ++m) z[ps][b][m] = t[at(line, base + m * s, 0)];
      dit(z[ps][b], w, R, s, k);
    }
    barrier(CLK_LOCAL_MEM_FENCE);  // before the next sub-tile overwrites t
  }

  // 2. The first stage, the product and the first stage of the inverse, in
  //    registers: point m of butterfly b is frequency (ky, kx) = (base + m s,
  //    line) of every sub-tile.
#pragma unroll
  for (int b = 0; b < BUTTERFLIES; ++b) {
    const int q = lid + b * items;
    if (q >= N * N / R) continue;
    int line, base, k;
    butterfly_of(q, R, s, 0, &line, &base, &k);
    const int kx = line;
    const float2 wx = twiddles2[kx];
#pragma unroll
    for (int m = 0; m < R; ++m) {
      const int ky = base + m * s;
      const float2 wy = twiddles2[ky], wxy = mul(wx, wy);
      const float2 s00 = z[0][b][m], s01 = mul(wx, z[1][b][m]);
      const float2 s10 = mul(wy, z[2][b][m]), s11 = mul(wxy, z[3][b][m]);
      const float2 e0 = s00 + s01, e1 = s00 - s01, f0 = s10 + s11, f1 = s10 - s11;
      const int row = ky * (2 * N) + kx;  // (ky, kx); + N: b = 1; + 2 N^2: a = 1
      const float2 y00 = mul(e0 + f0, filter_spectrum[row]);
      const float2 y01 = mul(e1 + f1, filter_spectrum[row + N]);
      const float2 y10 = mul(e0 - f0, filter_spectrum[row + 2 * N * N]);
      const float2 y11 = mul(e1 - f1, filter_spectrum[row + 2 * N * N + N]);
      const float2 g0 = y00 + y01, g1 = y00 - y01, h0 = y10 + y11, h1 = y10 - y11;
      z[0][b][m] = g0 + h0;
      z[1][b][m] = mul(conj2(wx), g1 + h1);
      z[2][b][m] = mul(conj2(wy), g0 - h0);
      z[3][b][m] = mul(conj2(wxy), g1 - h1);
    }
  }

  // 3. Each sub-tile's inverse: the first column pass from z, then as in
  //    convolve_fused, to its outputs.
#pragma unroll
  for (int ps = 0; ps < 4; ++ps) {
#pragma unroll
    for (int b = 0; b < BUTTERFLIES; ++b) {
      const int q = lid + b * items;
      if (q >= N * N / R) continue;
      int line, base, k;
      butterfly_of(q, R, s, 0, &line, &base, &k);
      dif(z[ps][b], w, R, s, k);
#pragma unroll
      for (int m = 0; m < R; ++m) t[at(line, base + m * s, 0)] = z[ps][b][m];
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    // Sub-tile rows rev(r) with 2 r + (ps >> 1) < valid: the output reads them.
    const int lines = (valid - (ps >> 1) + 1) / 2;  // at most N: valid <= 2N
#pragma unroll
    for (int p = PASSES - 2; p >= 0; --p) pass(t, w, 0, p, 1, N);
#pragma unroll
    for (int p = PASSES - 1; p >= 1; --p) pass(t, w, 1, p, 1, lines);
    store_last_pass(t, w, output, out_width, out_height, ox, oy, valid, 2, ps & 1, ps >> 1, lines);
    barrier(CLK_LOCAL_MEM_FENCE);  // before the next sub-tile overwrites t
  }
}
