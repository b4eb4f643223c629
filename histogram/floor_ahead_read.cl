// Not a histogram: loads-ahead's reads and nothing else. Each work-item
// keeps four 16-byte loads in flight, as loads-ahead does, and folds the
// vectors into one register instead of counting them. Run in loads-ahead's
// place (bench/histogram.sh does), it is the fastest that loads-ahead's
// reads alone can go, timed exactly like the variants.
//   build/bin/histogram --variant loads-ahead --kernel histogram/floor_ahead_read.cl

#define AHEAD 4

__kernel void count(__global const uchar* rgb, const uint pixels, const uint chunk,
                    __global uint* sums, __global uint* histogram) {
  const uint lid = get_local_id(0);
  const uint size = get_local_size(0);
  const size_t first = (size_t)get_group_id(0) * chunk * size * 3;  // bytes
  const size_t last = min(first + (size_t)chunk * size * 3, (size_t)pixels * 3);
  const size_t first_vec = (first + 15) / 16;
  const size_t end_vec = max(first_vec, last / 16);
  __global const uint4* vecs = (__global const uint4*)rgb;
  uint4 fold = 0;
#define STEP(b, k)                                                        \
  do {                                                                    \
    const size_t u = v + (k) * size;                                      \
    fold ^= b;                                                            \
    b = u + AHEAD * size < end_vec ? vecs[u + AHEAD * size] : (uint4)(0); \
  } while (0)
  size_t v = first_vec + lid;
  uint4 b0 = v < end_vec ? vecs[v] : (uint4)(0);
  uint4 b1 = v + size < end_vec ? vecs[v + size] : (uint4)(0);
  uint4 b2 = v + 2 * size < end_vec ? vecs[v + 2 * size] : (uint4)(0);
  uint4 b3 = v + 3 * size < end_vec ? vecs[v + 3 * size] : (uint4)(0);
  for (; v < end_vec; v += AHEAD * size) {
    STEP(b0, 0);
    STEP(b1, 1);
    STEP(b2, 2);
    STEP(b3, 3);
  }
  // A store that depends on every vector read (and almost never happens),
  // so that the compiler cannot drop the loads.
  if ((fold.x ^ fold.y ^ fold.z ^ fold.w) == 0x9e3779b9u) histogram[0] = fold.x;
}
