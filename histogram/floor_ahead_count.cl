// Not a histogram: loads-ahead's counting and nothing else. The same local
// copies and the same atomics, one per byte, but the bytes of vector v come
// from a hash of v instead of the image (as random as a noise image), so
// nothing is read from global memory. Run in loads-ahead's place
// (bench/histogram.sh does), it is the fastest that loads-ahead's counting
// alone can go, timed exactly like the variants.
//   build/bin/histogram --variant loads-ahead --kernel histogram/floor_ahead_count.cl

#define BINS 256
#define PARTIAL (3 * BINS)
#ifndef COPIES
#define COPIES 1
#endif
#define ADD(bin) atomic_inc(&counts[(bin) * COPIES + copy])

__kernel void count(__global const uchar* rgb, const uint pixels, const uint chunk,
                    __global uint* sums, __global uint* histogram) {
  __local uint counts[PARTIAL * COPIES];
  const uint lid = get_local_id(0);
  const uint size = get_local_size(0);
  const uint copy = lid % COPIES;
  for (uint i = lid; i < PARTIAL * COPIES; i += size) counts[i] = 0;
  barrier(CLK_LOCAL_MEM_FENCE);

  const size_t first = (size_t)get_group_id(0) * chunk * size * 3;
  const size_t last = min(first + (size_t)chunk * size * 3, (size_t)pixels * 3);
  const size_t first_vec = (first + 15) / 16;
  const size_t end_vec = max(first_vec, last / 16);
  for (size_t v = first_vec + lid; v < end_vec; v += size) {
    const uint h = (uint)v * 2654435761u;
    const uchar16 x = as_uchar16((uint4)(h, h * 747796405u + 1u, (h ^ (h >> 13)) * 1274126177u,
                                         (h + 0x68e31da4u) * 2246822519u));
    const uint c = (uint)(v % 3);
    const uint o0 = c * BINS;
    const uint o1 = (c == 2 ? 0 : c + 1) * BINS;
    const uint o2 = (c == 0 ? 2 : c - 1) * BINS;
    ADD(o0 + x.s0); ADD(o1 + x.s1); ADD(o2 + x.s2);
    ADD(o0 + x.s3); ADD(o1 + x.s4); ADD(o2 + x.s5);
    ADD(o0 + x.s6); ADD(o1 + x.s7); ADD(o2 + x.s8);
    ADD(o0 + x.s9); ADD(o1 + x.sa); ADD(o2 + x.sb);
    ADD(o0 + x.sc); ADD(o1 + x.sd); ADD(o2 + x.se);
    ADD(o0 + x.sf);
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  // A store that depends on every count (and almost never happens), so that
  // the compiler cannot drop the atomics.
  uint sum = 0;
  for (uint b = lid; b < PARTIAL * COPIES; b += size) sum ^= counts[b];
  if (sum == 0x9e3779b9u) histogram[0] = sum;
}
