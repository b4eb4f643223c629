// Step 10: correlation by overlap-save, each tile's transform in local
// memory. Step 9 transforms the whole image at once, so each axis of its
// transform is a pass over a spectrum far larger than any cache. Here the
// image is cut into N x N input tiles that overlap by F - 1 pixels; each
// work-group loads one pair of tiles, transforms it, multiplies it by the
// filter's spectrum, transforms it back and writes the V x V outputs
// (V = N - F + 1) that the circular wrap of an N-point transform cannot
// reach. The image is read once and the output written once: everything
// between stays in the work-group's local memory.
//
// Two real tiles make one complex tile: tile A in the real parts, its
// right-hand neighbour B in the imaginary parts. The filter is real, so
// correlating A + iB gives (A corr K) + i (B corr K): the real part of the
// result is A's output and the imaginary part B's, with no unpacking.
//
// The launcher sets TILE (N, a power of two) and LOG2_TILE, and passes the
// filter's spectrum (conj(DFT(K)) / N^2, computed once on the host) and the
// twiddles W^j = exp(-2 pi i j / N), j < N/2.

#define N TILE
#define PITCH (N + 1)  // one float2 of padding per row: see the butterfly passes

// Complex product.
float2 mul(float2 a, float2 b) { return (float2)(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x); }
// a * (-i) and a * (+i).
float2 times_minus_i(float2 a) { return (float2)(a.y, -a.x); }
float2 times_i(float2 a) { return (float2)(-a.y, a.x); }

int reverse_bits(int v) {
  int r = 0;
  for (int b = 0; b < LOG2_TILE; ++b) {
    r = (r << 1) | (v & 1);
    v >>= 1;
  }
  return r;
}

// Element e of line l: a row pass (rows = 1) walks along x in row l, a
// column pass along y in column l. Consecutive work-items take consecutive
// lines, so in a row pass they are PITCH float2s apart: N + 1, not N, or
// every one of them would hit the same bank of local memory.
int at(int line, int e, int rows) { return rows ? line * PITCH + e : e * PITCH + line; }

// One radix-2 stage of span 1 on every line (its twiddle is 1): the first
// stage of the forward transform, the last of the inverse, when log2 N is
// odd.
void radix2_lines(__local float2* t, int rows) {
  const int lid = get_local_id(0), items = get_local_size(0);
  for (int q = lid; q < N * (N / 2); q += items) {
    const int line = q % N, j = q / N;
    const int a = at(line, 2 * j, rows), b = at(line, 2 * j + 1, rows);
    const float2 x0 = t[a], x1 = t[b];
    t[a] = x0 + x1;
    t[b] = x0 - x1;
  }
  barrier(CLK_LOCAL_MEM_FENCE);
}

// Two stages of decimation in time on every line, spans s and 2s: each
// butterfly reads four values, a quarter of a block of 4s apart, into
// registers and writes them back.
void dit_radix4_lines(__local float2* t, __local const float2* w, int rows, const int s) {
  const int lid = get_local_id(0), items = get_local_size(0);
  for (int q = lid; q < N * (N / 4); q += items) {
    const int line = q % N, j = q / N;
    const int k = j % s, base = (j - k) * 4 + k;
    const int i0 = at(line, base, rows), i1 = at(line, base + s, rows);
    const int i2 = at(line, base + 2 * s, rows), i3 = at(line, base + 3 * s, rows);
    const float2 w2 = w[k * (N / (2 * s))];  // W_{2s}^k
    const float2 w4 = w[k * (N / (4 * s))];  // W_{4s}^k
    // span s: (x0, x1) and (x2, x3) with W_{2s}^k ...
    const float2 a1 = mul(w2, t[i1]), a3 = mul(w2, t[i3]);
    const float2 x0 = t[i0], x2 = t[i2];
    const float2 y0 = x0 + a1, y1 = x0 - a1;
    // ... span 2s: (y0, y2) with W_{4s}^k, (y1, y3) with W_{4s}^(k+s) = -i W_{4s}^k
    const float2 y2 = mul(w4, x2 + a3), y3 = times_minus_i(mul(w4, x2 - a3));
    t[i0] = y0 + y2;
    t[i2] = y0 - y2;
    t[i1] = y1 + y3;
    t[i3] = y1 - y3;
  }
  barrier(CLK_LOCAL_MEM_FENCE);
}

// Two stages of decimation in frequency, spans 2s then s, conjugated
// twiddles: the inverse's butterfly.
void dif_radix4_lines(__local float2* t, __local const float2* w, int rows, const int s) {
  const int lid = get_local_id(0), items = get_local_size(0);
  for (int q = lid; q < N * (N / 4); q += items) {
    const int line = q % N, j = q / N;
    const int k = j % s, base = (j - k) * 4 + k;
    const int i0 = at(line, base, rows), i1 = at(line, base + s, rows);
    const int i2 = at(line, base + 2 * s, rows), i3 = at(line, base + 3 * s, rows);
    const float2 w4 = w[k * (N / (4 * s))], w2 = w[k * (N / (2 * s))];
    const float2 c4 = (float2)(w4.x, -w4.y), c2 = (float2)(w2.x, -w2.y);  // conj
    const float2 x0 = t[i0], x1 = t[i1], x2 = t[i2], x3 = t[i3];
    // span 2s: (x0, x2) with conj W_{4s}^k, (x1, x3) with +i conj W_{4s}^k ...
    const float2 y0 = x0 + x2, y1 = x1 + x3;
    const float2 y2 = mul(c4, x0 - x2), y3 = times_i(mul(c4, x1 - x3));
    // ... span s: (y0, y1) and (y2, y3) with conj W_{2s}^k
    t[i0] = y0 + y1;
    t[i1] = mul(c2, y0 - y1);
    t[i2] = y2 + y3;
    t[i3] = mul(c2, y2 - y3);
  }
  barrier(CLK_LOCAL_MEM_FENCE);
}

// The forward transform of every line: decimation in time, input in
// bit-reversed order, output in natural order. Spans 1, 2, 4, ... N/2, two
// at a time, after one radix-2 stage when log2 N is odd. The loop over
// stages is unrolled, so each stage's span is a constant and its divisions
// are shifts.
void forward_lines(__local float2* t, __local const float2* w, int rows) {
  if (LOG2_TILE % 2) radix2_lines(t, rows);
#pragma unroll
  for (int stage = 0; stage < LOG2_TILE / 2; ++stage) dit_radix4_lines(t, w, rows, (1 + LOG2_TILE % 2) << (2 * stage));
}

// The inverse transform of every line (unnormalized: the filter's spectrum
// carries the 1 / N^2): decimation in frequency, input in natural order,
// output in bit-reversed order. Spans N/2 down to 1, two at a time, one
// radix-2 stage last when log2 N is odd.
void inverse_lines(__local float2* t, __local const float2* w, int rows) {
#pragma unroll
  for (int stage = 0; stage < LOG2_TILE / 2; ++stage) dif_radix4_lines(t, w, rows, (N / 4) >> (2 * stage));
  if (LOG2_TILE % 2) radix2_lines(t, rows);
}

// One work-group per pair of tiles: pair p is tiles 2 (p % pairs_x) and
// 2 (p % pairs_x) + 1 of tile row p / pairs_x. Each tile's V x V outputs
// start at its index times V; its input, N x N, starts at the same place
// in the padded image.
__kernel void convolve(__global const float* input,   // the padded image
                       const int in_width, const int in_height,
                       __global float* output,         // out_width x out_height
                       const int out_width, const int out_height,
                       __global const float2* filter_spectrum,  // N x N: conj(DFT(K)) / N^2
                       __global const float2* twiddles,         // N / 2
                       const int valid,                         // V = N - F + 1
                       const int pairs_x) {
  __local float2 t[N * PITCH];
  __local float2 w[N / 2];
  const int lid = get_local_id(0), items = get_local_size(0);
  const int pair = get_group_id(0);
  const int ox = 2 * (pair % pairs_x) * valid, oy = (pair / pairs_x) * valid;

  for (int j = lid; j < N / 2; j += items) w[j] = twiddles[j];
  // 1. Load: A into the real parts, B (valid pixels to the right) into the
  //    imaginary parts, zeros past the image, each at (rev(x), rev(y)) as
  //    the forward transform wants them.
  for (int e = lid; e < N * N; e += items) {
    const int x = e % N, y = e / N;
    const int gy = oy + y, ga = ox + x, gb = ox + valid + x;
    float2 v = (float2)(0.0f, 0.0f);
    if (gy < in_height) {
      if (ga < in_width) v.x = input[gy * in_width + ga];
      if (gb < in_width) v.y = input[gy * in_width + gb];
    }
    t[reverse_bits(y) * PITCH + reverse_bits(x)] = v;
  }
  barrier(CLK_LOCAL_MEM_FENCE);

  // 2. Forward: every row, then every column.
  forward_lines(t, w, 1);
  forward_lines(t, w, 0);

  // 3. The product with the filter's spectrum, in natural order.
  for (int e = lid; e < N * N; e += items) {
    const int x = e % N, y = e / N;
    t[y * PITCH + x] = mul(t[y * PITCH + x], filter_spectrum[e]);
  }
  barrier(CLK_LOCAL_MEM_FENCE);

  // 4. Inverse: every row, then every column; the result lands at
  //    (rev(x), rev(y)).
  inverse_lines(t, w, 1);
  inverse_lines(t, w, 0);

  // 5. Write the outputs the wrap cannot reach: x, y < V of each tile.
  for (int e = lid; e < valid * valid; e += items) {
    const int x = e % valid, y = e / valid;
    const int gy = oy + y;
    if (gy >= out_height) continue;
    const float2 v = t[reverse_bits(y) * PITCH + reverse_bits(x)];
    if (ox + x < out_width) output[gy * out_width + ox + x] = v.x;
    if (ox + valid + x < out_width) output[gy * out_width + ox + valid + x] = v.y;
  }
}
