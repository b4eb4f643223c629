// A candidate layout of step 10 for the tuner (docs/step10-fft-tiled.md,
// "Candidates"), and the default where the tile fits local memory whole:
// the lesson's overlap-save (convolve.cl: one work-group per pair of
// tiles, tile A in the real parts, its right-hand neighbour B in the
// imaginary parts, the V x V outputs of each written), with its transform
// done in fewer trips through local memory. Each work-item does three
// radix-2 stages at once in registers (a radix-8 pass), and three passes
// are fused with their neighbours: the first forward row pass with the
// load, the last forward column pass, the product and the first inverse
// column pass in one, and the last inverse row pass with the store. The
// inverse row passes skip the rows no output reads.
//
// The split and registers candidates are built after this file
// (candidates/launch.cpp) and call its helpers. The launcher sets TILE (N,
// a power of two), LOG2_TILE and ITEMS (the work-group's size), and passes
// the filter's spectrum (conj(DFT(K)) / N^2) and the twiddles
// W^j = exp(-2 pi i j / N), j < N/2, as for the lesson's kernel.

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
// time starts from. stride is 1 in convolve_fused (every pixel of the
// tile) and 2 in the split candidate (split.cl: one of its four sub-tiles).
// The low log2 R bits of base are 0 and m < R, so rev(base + m) = rev(base)
// + rev(m): one reversal per butterfly, and rev(m), m unrolled, a
// constant. (A reversal per point was a measurable share of the H100's
// time: integer work on every point.)
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
__kernel __attribute__((reqd_work_group_size(ITEMS, 1, 1))) void convolve_fused(
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
