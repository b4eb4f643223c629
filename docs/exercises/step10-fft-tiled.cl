// Exercise, step 10 (docs/step10-fft-tiled.md, docs/coursework.md). Write
// the body of convolve() below: the butterflies (dit, dif), the passes
// (pass, load_first_pass, store_last_pass) and the layout (at,
// butterfly_of) are given. As handed out, this
// file builds but computes nothing, so every conformance case of step 10
// fails. The suite runs --tile auto, 32 and 64, in the local layout (the
// candidate layouts in step10-fft-tiled/candidates/, split and registers,
// build the step's own kernels and are not graded). Work on a copy in the
// repository root and grade the copy:
//   cp docs/exercises/step10-fft-tiled.cl my-step10.cl
//   CLCONV_KERNEL_STEP10=$PWD/my-step10.cl ctest --preset default -L step10
//
// The launcher builds it with -D TILE=N -D LOG2_TILE=log2(N) -D ITEMS=size,
// and runs one work-group of ITEMS work-items per pair of tiles, in one
// dimension.
//
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
// 2 in the split candidate (split.cl: one of its four sub-tiles).
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
__kernel __attribute__((reqd_work_group_size(ITEMS, 1, 1))) void convolve(
                       __global const float* input,   // the padded image
                       const int in_width, const int in_height,
                       __global float* output,         // out_width x out_height
                       const int out_width, const int out_height,
                       __global const float2* filter_spectrum,  // N x N: conj(DFT(K)) / N^2
                       __global const float2* twiddles,         // N / 2
                       const int valid,                         // V = N - F + 1
                       const int pairs_x) {
  // TODO 1. The tile and the twiddles in local memory:
  //   __local float2 t[N * PITCH];  __local float2 w[N / 2];
  // w[j] = twiddles[j] for j < N/2, shared by the work-group's items (a
  // loop from get_local_id(0) in steps of get_local_size(0)); a barrier.
  // TODO 2. Pair get_group_id(0): its first tile's outputs start at
  // x = 2 (pair % pairs_x) V, y = (pair / pairs_x) V, and so does its
  // input; the second tile is V pixels to the right.
  // TODO 3. Load: point (x, y) of the complex tile is input pixel
  // (ox + x, oy + y) in its real part and (ox + V + x, oy + y) in its
  // imaginary part, 0 past the image. Decimation in time wants it at
  // (rev(x), rev(y)): store it with at(rev(y), rev(x), 1), or run the first
  // row pass on it in registers, as load_first_pass(..., 1, 0, 0) does (then
  // start TODO 4 at p = 1). Barrier.
  // TODO 4. Forward: every row pass (pass(t, w, 1, p, 0, N), p = 0 ..
  // PASSES - 1), then every column pass (rows = 0).
  // TODO 5. The product: point (x, y), at t[at(y, x, 1)] (natural order
  // now), times filter_spectrum[y N + x]. Barrier.
  // TODO 6. Inverse: the column passes, then the row passes, in the reverse
  // order (p = PASSES - 1 .. 0, inverse = 1; lines = N, or V in the row
  // passes: only the rows the output reads).
  // TODO 7. Write: output (x, y) of the pair is at at(rev(y), rev(x), 1);
  // x, y < V only, and inside the output: the real part to the first
  // tile's output, the imaginary part to the second's. store_last_pass
  // (..., 1, 0, 0, V) does the last inverse row pass (p = 0) and this
  // write.
}
