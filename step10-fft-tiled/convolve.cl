// Step 10: correlation by overlap-save, each pair of tiles transformed in
// local memory. Step 9 transforms the whole image at once, so each axis of
// its transform is a pass over a spectrum far larger than any cache. Here
// the transform is small enough to stay in one work-group's local memory.
//
// Overlap-save. Correlating an N x N tile with an F x F filter through an
// N-point transform is circular: output (x, y) sums the pixels from (x, y)
// to (x + F - 1, y + F - 1), wrapping round the tile's edges. The outputs
// x, y < V = N - F + 1 never wrap, so they are the true correlation; the
// others are thrown away. Tiles that start V pixels apart (overlapping by
// F - 1) give every output once.
//
// Two real tiles in one complex one. The transform is linear and the filter
// real, so correlating A + iB gives (A corr K) + i (B corr K): tile A goes
// in the real parts, its right-hand neighbour B (V pixels on) in the
// imaginary parts, and one transform serves both.
//
// The launcher sets TILE (N, a power of two), LOG2_TILE and ITEMS (the
// work-group's size), and passes the filter's spectrum, conj(DFT(K)) / N^2
// (computed once on the host, the inverse's 1 / N^2 included), and the
// twiddles W^j = exp(-2 pi i j / N), j < N/2.

#define N TILE
#define PITCH (N + N / 8)  // a row of the tile in local memory: see at()

float2 mul(float2 a, float2 b) { return (float2)(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x); }

// Where point (x, y) of the tile lives in local memory. Each run of 8
// points is followed by one unused float2, so that work-items touching
// points a power of two apart (the bit-reversed load and write below) are
// spread over more of local memory's banks.
int at(int x, int y) { return y * PITCH + x + (x >> 3); }

// v with its LOG2_TILE bits in reverse order. The transform is done in
// place: decimation in time takes its input with point x at rev(x) and
// gives its output in natural order; decimation in frequency, its mirror
// image, takes natural order and leaves point x at rev(x). So the load
// stores each pixel reversed, the product sees the spectrum in natural
// order, and the write reads each output back reversed: no pass reorders.
int rev(int v) {
  int r = 0;
  for (int b = 0; b < LOG2_TILE; ++b) r = (r << 1) | ((v >> b) & 1);
  return r;
}

// One radix-2 stage on every line of the tile (its rows, or its columns
// when rows is 0): butterfly j of a line joins points a and a + h, h the
// stage's half-size. Forward (decimation in time): y times the twiddle
// W_2h^k, then sum and difference. Inverse (decimation in frequency): sum
// and difference, then the difference times the conjugate twiddle.
// Consecutive work-items take consecutive butterflies of a row, or the
// same butterfly of consecutive columns: neighbouring addresses.
void stage(__local float2* t, __local const float2* w, int h, int rows, int inverse) {
  for (int q = get_local_id(0); q < N * N / 2; q += ITEMS) {
    const int line = rows ? q / (N / 2) : q % N, j = rows ? q % (N / 2) : q / N;
    const int k = j % h, a = 2 * (j - k) + k;
    const float2 tw = w[k * (N / (2 * h))];  // W_2h^k = W_N^(k N / 2h)
    const int ia = rows ? at(a, line) : at(line, a), ib = rows ? at(a + h, line) : at(line, a + h);
    const float2 x = t[ia], y = t[ib];
    if (inverse) {
      t[ia] = x + y;
      t[ib] = mul(x - y, (float2)(tw.x, -tw.y));
    } else {
      t[ia] = x + mul(y, tw);
      t[ib] = x - mul(y, tw);
    }
  }
  // The next stage reads points that other work-items wrote in this one:
  // none may start it before all have finished. Every work-item comes here,
  // however many butterflies it had.
  barrier(CLK_LOCAL_MEM_FENCE);
}

// The log2 N stages along one axis: half-sizes 1, 2, ..., N/2 forward,
// N/2, ..., 1 inverse.
void transform(__local float2* t, __local const float2* w, int rows, int inverse) {
  for (int s = 0; s < LOG2_TILE; ++s) stage(t, w, inverse ? N >> (s + 1) : 1 << s, rows, inverse);
}

// One work-group per pair of tiles: pair p is tiles 2 (p % pairs_x) and
// 2 (p % pairs_x) + 1 of tile row p / pairs_x. A tile's V x V outputs
// start at its index times V, and so does its N x N input in the padded
// image.
__kernel __attribute__((reqd_work_group_size(ITEMS, 1, 1))) void convolve(
                       __global const float* input,   // the padded image
                       const int in_width, const int in_height,
                       __global float* output,         // out_width x out_height
                       const int out_width, const int out_height,
                       __global const float2* filter_spectrum,  // N x N, row ky: conj(DFT(K)) / N^2
                       __global const float2* twiddles,         // N / 2
                       const int valid,                         // V = N - F + 1
                       const int pairs_x) {
  __local float2 t[N * PITCH];
  __local float2 w[N / 2];
  const int lid = get_local_id(0), pair = get_group_id(0);
  const int ox = 2 * (pair % pairs_x) * valid, oy = (pair / pairs_x) * valid;
  for (int j = lid; j < N / 2; j += ITEMS) w[j] = twiddles[j];

  // 1. Load: pixel (x, y) of A and of B, zero past the image, at
  //    (rev(x), rev(y)). Consecutive work-items read consecutive pixels.
  for (int i = lid; i < N * N; i += ITEMS) {
    const int x = i % N, y = i / N, gy = oy + y, ga = ox + x, gb = ga + valid;
    float2 v = (float2)(0.0f, 0.0f);
    if (gy < in_height && ga < in_width) v.x = input[gy * in_width + ga];
    if (gy < in_height && gb < in_width) v.y = input[gy * in_width + gb];
    t[at(rev(x), rev(y))] = v;
  }
  barrier(CLK_LOCAL_MEM_FENCE);

  // 2. Forward transform: every row, then every column.
  transform(t, w, 1, 0);
  transform(t, w, 0, 0);

  // 3. The product with the filter's spectrum, frequency (kx, ky).
  for (int i = lid; i < N * N; i += ITEMS) t[at(i % N, i / N)] = mul(t[at(i % N, i / N)], filter_spectrum[i]);
  barrier(CLK_LOCAL_MEM_FENCE);

  // 4. Inverse transform: every column, then every row.
  transform(t, w, 0, 1);
  transform(t, w, 1, 1);

  // 5. Write the V x V outputs of both tiles: output (x, y) of the pair is
  //    at (rev(x), rev(y)), A's in the real part and B's in the imaginary.
  for (int i = lid; i < valid * valid; i += ITEMS) {
    const int x = i % valid, y = i / valid, gy = oy + y, ga = ox + x, gb = ga + valid;
    const float2 v = t[at(rev(x), rev(y))];
    if (gy < out_height && ga < out_width) output[gy * out_width + ga] = v.x;
    if (gy < out_height && gb < out_width) output[gy * out_width + gb] = v.y;
  }
}
