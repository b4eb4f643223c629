// Step 10: correlation by overlap-save, each tile's transform in local
// memory. Step 9 transforms the whole image at once, so each axis of its
// transform is a pass over a spectrum far larger than any cache. Here the
// image is cut into N x N input tiles that overlap by F - 1 pixels; each
// work-group loads one pair of tiles, transforms it, multiplies it by the
// filter's spectrum, transforms it back and writes the V x V outputs
// (V = N - F + 1) that the circular wrap of an N-point transform cannot
// reach. The image is read once and the output written once: everything
// between stays on chip, in the work-group's local memory and registers.
//
// Two real tiles make one complex tile: tile A in the real parts, its
// right-hand neighbour B in the imaginary parts. The filter is real, so
// correlating A + iB gives (A corr K) + i (B corr K): the real part of the
// result is A's output and the imaginary part B's, with no unpacking.
//
// The launcher sets TILE (N, a power of two), LOG2_TILE and ITEMS (the
// work-group's size), and passes the filter's spectrum (conj(DFT(K)) / N^2,
// computed once on the host) and the twiddles W^j = exp(-2 pi i j / N),
// j < N/2.

#define N TILE
#define PITCH (N + N / 8)  // padding: see at()

// Complex product.
float2 mul(float2 a, float2 b) { return (float2)(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x); }
float2 conj2(float2 a) { return (float2)(a.x, -a.y); }

// v with its LOG2_TILE bits in reverse order: the position decimation in
// time reads point v from, and where decimation in frequency leaves it.
// Five swaps reverse all 32 bits (neighbouring bits, then pairs, nibbles,
// bytes and halves), and the shift keeps the top LOG2_TILE: fewer
// operations than a loop over the bits, which on PoCL cost a few percent
// of the whole kernel. The first and last passes call it once per
// butterfly, not once per point (load_first_pass).
int reverse_bits(int v) {
  uint r = (uint)v;
  r = ((r >> 1) & 0x55555555u) | ((r & 0x55555555u) << 1);
  r = ((r >> 2) & 0x33333333u) | ((r & 0x33333333u) << 2);
  r = ((r >> 4) & 0x0F0F0F0Fu) | ((r & 0x0F0F0F0Fu) << 4);
  r = ((r >> 8) & 0x00FF00FFu) | ((r & 0x00FF00FFu) << 8);
  r = (r >> 16) | (r << 16);
  return (int)(r >> (32 - LOG2_TILE));
}

// Element e of line l: a row pass (rows = 1) walks along x in row l, a
// column pass along y in column l. Rows are PITCH = N + N/8 float2s apart
// and each run of 8 along x is followed by one float2 of padding, so that
// neither the work-items of a row pass (8 points of one row apart, or
// consecutive ones) nor those of a column pass (consecutive columns) fall
// in the same bank of local memory.
int at(int line, int e, int rows) {
  const int x = rows ? e : line, y = rows ? line : e;
  return y * PITCH + x + (x >> 3);
}

// A pass does R = 2, 4 or 8 points of a line at once, in registers: the
// radix-2 stages of spans s, 2s, ... (R/2) s (log2 R of them) on the R
// values v[m] = line[base + m s], base = the start of a block of R s
// points plus k, k < s. The
// first log2 N % 3 stages go in a pass of radix 2 or 4, the rest in passes
// of radix 8, so a 64-point line is two passes and a 128-point line three.
//
// Forward, decimation in time (input bit-reversed, output natural): spans
// grow. The pair (a, b = a + h) at half-size h s takes the twiddle
// W_{2hs}^(k + c s) = W_{2hs}^k W_{2h}^c, c = a mod h: one read of the table
// per stage, times a root of unity of order 2, 4 or 8 that is a constant
// (root()).
float2 root(const int c, const int h) {  // W_{2h}^c, c < h <= 4
  const float r = 0.70710678118654752f;  // 1 / sqrt(2)
  if (c == 0) return (float2)(1.0f, 0.0f);
  if (2 * c == h) return (float2)(0.0f, -1.0f);
  return c == 1 ? (float2)(r, -r) : (float2)(-r, -r);  // h = 4: c = 1 or 3
}

void dit(float2* v, __local const float2* w, const int R, const int s, int k) {
#pragma unroll
  for (int h = 1; h < R; h *= 2) {  // h = half-size / s
    const float2 wk = w[k * (N / (2 * h * s))];  // W_{2hs}^k
#pragma unroll
    for (int a = 0; a < R; ++a) {
      if (a & h) continue;
      const int c = a & (h - 1);
      const float2 tw = c ? mul(wk, root(c, h)) : wk;
      const float2 x = v[a], y = mul(tw, v[a + h]);
      v[a] = x + y;
      v[a + h] = x - y;
    }
  }
}

// Inverse, decimation in frequency (input natural, output bit-reversed),
// conjugated twiddles: spans shrink, the twiddle applied after the
// difference.
void dif(float2* v, __local const float2* w, const int R, const int s, int k) {
#pragma unroll
  for (int h = R / 2; h >= 1; h /= 2) {
    const float2 wk = conj2(w[k * (N / (2 * h * s))]);
#pragma unroll
    for (int a = 0; a < R; ++a) {
      if (a & h) continue;
      const int c = a & (h - 1);
      const float2 tw = c ? mul(wk, conj2(root(c, h))) : wk;
      const float2 x = v[a], y = v[a + h];
      v[a] = x + y;
      v[a + h] = mul(tw, x - y);
    }
  }
}

// The passes of one line in this transform: radix FIRST_RADIX at span 1,
// then radix 8 at spans FIRST_RADIX, 8 FIRST_RADIX, ...
#define FIRST_RADIX (LOG2_TILE % 3 == 0 ? 8 : 1 << (LOG2_TILE % 3))
#define PASSES (1 + (LOG2_TILE - 1) / 3)
int pass_radix(int p) { return p == 0 ? FIRST_RADIX : 8; }
int pass_span(int p) { return p == 0 ? 1 : FIRST_RADIX << (3 * (p - 1)); }

// Work-item q's butterfly in a pass of radix R and span s: its line and
// the first of its points, base (and k = base mod s). In a row pass,
// consecutive work-items take consecutive butterflies of one row, so a
// warp reads the image, and writes the output, a row at a time; in a column
// pass they take consecutive columns.
void butterfly_of(int q, const int R, const int s, int rows, int* line, int* base, int* k) {
  const int j = rows ? q % (N / R) : q / N;
  *line = rows ? q / (N / R) : q % N;
  *k = j % s;
  *base = (j - *k) * R + *k;
}

// Work-item get_local_id(0) does butterflies q = id, id + ITEMS, ... of
// a pass. ITEMS is a constant, so the loop's count is one too, which PoCL
// turns into faster code on a CPU than a loop to get_local_size(0).
#define ROUNDS(count) (((count) + ITEMS - 1) / ITEMS)

// One pass, local memory to local memory: every line, or in the inverse
// row passes only the rows the output reads. Those are the rows
// rev(r), r < lines (row rev(r) holds output row r: store_last_pass), so
// the lines of r >= lines, whose outputs the wrap reaches, are skipped.
void pass(__local float2* t, __local const float2* w, int rows, const int p, const int inverse, const int lines) {
  const int R = pass_radix(p), s = pass_span(p), count = lines * (N / R);
  for (int i = 0; i < ROUNDS(N * N / R); ++i) {
    const int q = get_local_id(0) + i * ITEMS;
    if (q >= count) break;
    int line, base, k;
    butterfly_of(q, R, s, rows, &line, &base, &k);
    if (rows && inverse) line = reverse_bits(line);
    float2 v[8];
#pragma unroll
    for (int m = 0; m < R; ++m) v[m] = t[at(line, base + m * s, rows)];
    if (inverse)
      dif(v, w, R, s, k);
    else
      dit(v, w, R, s, k);
#pragma unroll
    for (int m = 0; m < R; ++m) t[at(line, base + m * s, rows)] = v[m];
  }
  barrier(CLK_LOCAL_MEM_FENCE);
}

// The first forward row pass, from the image: A into the real parts, B
// (V pixels to the right) into the imaginary parts, zeros past the image.
// Point base + m s of row r holds pixel (stride rev(base + m s) + sx,
// stride rev(r) + sy) of the tile: the bit-reversed order decimation in
// time starts from. stride is 1 in convolve (every pixel of the tile) and
// 2 in convolve_split (one of its four sub-tiles). The low log2 R bits of
// base are 0 and m < R, so rev(base + m) = rev(base) + rev(m): one reversal
// per butterfly, and rev(m), m unrolled, a constant. (A reversal per point
// was a measurable share of the H100's time: integer work on every point.)
void load_first_pass(__local float2* t, __local const float2* w, __global const float* input,
                     const int in_width, const int in_height, const int ox, const int oy, const int valid,
                     const int stride, const int sx, const int sy) {
  const int R = pass_radix(0);
  for (int i = 0; i < ROUNDS(N * N / R); ++i) {
    const int q = get_local_id(0) + i * ITEMS;
    if (q >= N * N / R) break;
    int line, base, k;
    butterfly_of(q, R, 1, 1, &line, &base, &k);
    const int gy = oy + stride * reverse_bits(line) + sy, rb = reverse_bits(base);
    float2 v[8];
#pragma unroll
    for (int m = 0; m < R; ++m) {
      const int x = stride * (rb + reverse_bits(m)) + sx, ga = ox + x, gb = ox + valid + x;
      v[m] = (float2)(0.0f, 0.0f);
      if (gy < in_height) {
        if (ga < in_width) v[m].x = input[gy * in_width + ga];
        if (gb < in_width) v[m].y = input[gy * in_width + gb];
      }
    }
    dit(v, w, R, 1, k);
#pragma unroll
    for (int m = 0; m < R; ++m) t[at(line, base + m, 1)] = v[m];
  }
  barrier(CLK_LOCAL_MEM_FENCE);
}

// The last inverse row pass, and the write: point base + m of row rev(r)
// is output (stride rev(base + m) + sx, stride r + sy) of the tile; those
// under V in both are the ones the wrap cannot reach. Only the rows
// r < lines (under V) are done, as in the other inverse row passes.
void store_last_pass(__local const float2* t, __local const float2* w, __global float* output,
                     const int out_width, const int out_height, const int ox, const int oy, const int valid,
                     const int stride, const int sx, const int sy, const int lines) {
  const int R = pass_radix(0), count = lines * (N / R);
  for (int i = 0; i < ROUNDS(N * N / R); ++i) {
    const int q = get_local_id(0) + i * ITEMS;
    if (q >= count) break;
    int r, base, k;
    butterfly_of(q, R, 1, 1, &r, &base, &k);
    const int line = reverse_bits(r), rb = reverse_bits(base);
    float2 v[8];
#pragma unroll
    for (int m = 0; m < R; ++m) v[m] = t[at(line, base + m, 1)];
    dif(v, w, R, 1, k);
    const int y = stride * r + sy, gy = oy + y;
    if (y >= valid || gy >= out_height) continue;  // y < valid: for lines = N
#pragma unroll
    for (int m = 0; m < R; ++m) {
      const int x = stride * (rb + reverse_bits(m)) + sx;
      if (x >= valid) continue;
      if (ox + x < out_width) output[gy * out_width + ox + x] = v[m].x;
      if (ox + valid + x < out_width) output[gy * out_width + ox + valid + x] = v[m].y;
    }
  }
}

#if !defined(SPLIT) && !defined(REGISTERS)
// One work-group per pair of tiles: pair p is tiles 2 (p % pairs_x) and
// 2 (p % pairs_x) + 1 of tile row p / pairs_x. Each tile's V x V outputs
// start at its index times V; its input, N x N, starts at the same place
// in the padded image.
//
// The 2D transform is every row's, then every column's. Three places skip
// a trip through local memory: the first forward row pass reads the image
// straight into registers; the last forward column pass, the product with
// the filter's spectrum and the first inverse column pass are one pass (the
// two passes work on the same points of a column); and the last inverse
// row pass writes the outputs straight from registers.
__kernel __attribute__((reqd_work_group_size(ITEMS, 1, 1))) void convolve(
                       __global const float* input,   // the padded image
                       const int in_width, const int in_height,
                       __global float* output,         // out_width x out_height
                       const int out_width, const int out_height,
                       __global const float2* filter_spectrum,  // N x N: conj(DFT(K)) / N^2
                       __global const float2* twiddles,         // N / 2
                       const int valid,                         // V = N - F + 1
                       const int pairs_x) {
  __local float2 t[N * PITCH];
  __local float2 w[N / 2];
  const int lid = get_local_id(0), items = ITEMS;
  const int pair = get_group_id(0);
  const int ox = 2 * (pair % pairs_x) * valid, oy = (pair / pairs_x) * valid;
  for (int j = lid; j < N / 2; j += items) w[j] = twiddles[j];
  barrier(CLK_LOCAL_MEM_FENCE);

  // 1. Load and the first row pass.
  load_first_pass(t, w, input, in_width, in_height, ox, oy, valid, 1, 0, 0);
  // 2. The other forward row passes, and the column passes but the last.
#pragma unroll
  for (int p = 1; p < PASSES; ++p) pass(t, w, 1, p, 0, N);
#pragma unroll
  for (int p = 0; p < PASSES - 1; ++p) pass(t, w, 0, p, 0, N);

  // 3. The last forward column pass, the product (natural order: point
  //    base + m s of column c is frequency (c, base + m s)) and the first
  //    inverse column pass, in registers.
  {
    const int R = 8, s = pass_span(PASSES - 1);
    for (int i = 0; i < ROUNDS(N * N / R); ++i) {
      const int q = lid + i * ITEMS;
      if (q >= N * N / R) break;
      int line, base, k;
      butterfly_of(q, R, s, 0, &line, &base, &k);
      float2 v[8];
#pragma unroll
      for (int m = 0; m < R; ++m) v[m] = t[at(line, base + m * s, 0)];
      dit(v, w, R, s, k);
#pragma unroll
      for (int m = 0; m < R; ++m) v[m] = mul(v[m], filter_spectrum[(base + m * s) * N + line]);
      dif(v, w, R, s, k);
#pragma unroll
      for (int m = 0; m < R; ++m) t[at(line, base + m * s, 0)] = v[m];
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  // 4. The other inverse column passes, and the row passes but the last.
#pragma unroll
  for (int p = PASSES - 2; p >= 0; --p) pass(t, w, 0, p, 1, N);
#pragma unroll
  for (int p = PASSES - 1; p >= 1; --p) pass(t, w, 1, p, 1, valid);  // rows y < V only

  // 5. The last inverse row pass, and the write.
  store_last_pass(t, w, output, out_width, out_height, ox, oy, valid, 1, 0, 0, valid);
}

#elif defined(SPLIT)
// A tile of 2N x 2N points when local memory holds only N x N: the first
// stage of decimation in time, done last, in registers. Sub-tile (p, s) is
// the tile's pixels (2 x + s, 2 y + p); its N x N transform S_ps goes
// through local memory as in convolve, one sub-tile after another, and each
// work-item keeps its points of the last column pass in registers, the same
// points (ky, kx) of all four sub-tiles. The 2N x 2N spectrum at
// (ky + N a, kx + N b), a, b in {0, 1}, is then
//   X_ab = sum over p, s of (-1)^(p a + s b) W^(p ky + s kx) S_ps,
// W = exp(-2 pi i / 2N): a 2 x 2 butterfly with twiddles, in registers. The
// product with the filter's spectrum follows, and the same butterfly
// backwards gives each sub-tile's share of the inverse, which goes back
// through local memory to the outputs (2 x + s, 2 y + p).
//
// The launcher defines SPLIT for this kernel. BUTTERFLIES is how many
// butterflies of the last column pass each work-item does. Its
// registers hold 32 points per butterfly. reqd_work_group_size tells the
// compiler the size, so that it budgets registers for exactly that many
// work-items: NVIDIA's otherwise assumes 256 of them and gives each more
// (175 registers on the H100, too many for 512; 128 with the promise).
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
  //    convolve, to its outputs.
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

#else
// The whole transform of a line in one work-item's registers. A work-item
// holds a column of the pair (N points), so each 1D transform is done
// without a trip through local memory, and the 2D transforms need just two
// exchanges: one between the column and the row transforms, one between
// the row and the column inverses (the local layout makes six round trips).
// N = 8 Q points, Q = N / 8: 16, 32 or 64 (the launcher runs 32 and 64).
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

// One work-group per pair of tiles, as in convolve: tile A in the real
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
#endif
