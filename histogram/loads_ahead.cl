// Histogram, variant loads-ahead: one-launch with its loads ahead of its
// counting. One change: a work-item keeps AHEAD 16-byte vectors in
// registers, and as soon as it takes one out to count it, it loads the
// vector AHEAD x size further on into the same register. So AHEAD loads of
// every work-item are on their way from memory while it does the atomics of
// the vector in hand; one-launch's work-item asks for its next vector only
// after it has counted this one. A vector past the group's share is loaded
// as zero and not counted.
// The rest (16-byte reads, the channel of byte j of vector v is
// (v + j) % 3, COPIES local histograms, the last group's merge) is
// one-launch's, unchanged.
//
// Bins: 256 red counts, then 256 green, then 256 blue (as PIL returns them).

#define BINS 256
#define CHANNELS 3
#define PARTIAL (CHANNELS * BINS)
#ifndef COPIES
#define COPIES 1
#endif
#define AHEAD 4  // vectors in flight per work-item: the registers b0 to b3

// A fence for the whole device. OpenCL 1.2's mem_fence() only orders one
// work-item's own accesses, and NVIDIA's compiler makes it a fence for the
// work-group (membar.cta); the other groups need membar.gl, in PTX.
#ifdef __NV_CL_C_VERSION
#define DEVICE_FENCE() asm volatile("membar.gl;" ::: "memory")
#else
#define DEVICE_FENCE() mem_fence(CLK_GLOBAL_MEM_FENCE)
#endif

#define ADD(bin) atomic_inc(&counts[(bin) * COPIES + copy])

// The 16 bytes x of vector v, each into its channel's bins: bytes 0, 3, 6,
// ... at offset o0, bytes 1, 4, 7, ... at o1, bytes 2, 5, 8, ... at o2.
#define COUNT16(x, v)                                               \
  do {                                                              \
    const uint c = (uint)((v) % 3);                                 \
    const uint o0 = c * BINS;                                       \
    const uint o1 = (c == 2 ? 0 : c + 1) * BINS;                    \
    const uint o2 = (c == 0 ? 2 : c - 1) * BINS;                    \
    ADD(o0 + (x).s0); ADD(o1 + (x).s1); ADD(o2 + (x).s2);           \
    ADD(o0 + (x).s3); ADD(o1 + (x).s4); ADD(o2 + (x).s5);           \
    ADD(o0 + (x).s6); ADD(o1 + (x).s7); ADD(o2 + (x).s8);           \
    ADD(o0 + (x).s9); ADD(o1 + (x).sa); ADD(o2 + (x).sb);           \
    ADD(o0 + (x).sc); ADD(o1 + (x).sd); ADD(o2 + (x).se);           \
    ADD(o0 + (x).sf);                                               \
  } while (0)

__kernel void count(__global const uchar* rgb,  // RGBRGB..., 3 bytes a pixel
                    const uint pixels,
                    const uint chunk,           // pixels per work-item
                    __global uint* sums,        // PARTIAL sums, then groups done; all zero
                    __global uint* histogram) { // PARTIAL, written by the last group
  __local uint counts[PARTIAL * COPIES];
  const uint lid = get_local_id(0);
  const uint size = get_local_size(0);
  const uint copy = lid % COPIES;

  for (uint i = lid; i < PARTIAL * COPIES; i += size) counts[i] = 0;
  barrier(CLK_LOCAL_MEM_FENCE);

  // The group owns the bytes [first, last) of the image.
  const size_t first = (size_t)get_group_id(0) * chunk * size * CHANNELS;
  const size_t last = min(first + (size_t)chunk * size * CHANNELS, (size_t)pixels * CHANNELS);
  const size_t first_vec = (first + 15) / 16;
  const size_t end_vec = max(first_vec, last / 16);
  __global const uint4* vecs = (__global const uint4*)rgb;
  // The vector in register b, number u = v + k * size, is counted; the one
  // AHEAD * size further on is loaded into b in its place.
#define STEP(b, k)                                                              \
  do {                                                                          \
    const size_t u = v + (k) * size;                                            \
    const uchar16 x = as_uchar16(b); /* memory order on any endianness */       \
    b = u + AHEAD * size < end_vec ? vecs[u + AHEAD * size] : (uint4)(0);       \
    if (u < end_vec) COUNT16(x, u);                                             \
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
  // The bytes before the first whole vector and after the last: 15 at most each.
  for (size_t i = first + lid; i < min(16 * first_vec, last); i += size)
    ADD((uint)(i % 3) * BINS + rgb[i]);
  for (size_t i = 16 * end_vec + lid; i < last; i += size) ADD((uint)(i % 3) * BINS + rgb[i]);
  barrier(CLK_LOCAL_MEM_FENCE);  // every count is in before anyone reads one

  for (uint b = lid; b < PARTIAL; b += size) {
    uint sum = 0;
    // Starting at copy b % COPIES spreads neighbouring work-items over the banks.
    for (uint k = 0; k < COPIES; ++k) sum += counts[b * COPIES + (b + k) % COPIES];
    if (sum != 0) atomic_add(&sums[b], sum);
  }
  // Every work-item's additions reach global memory before the group says
  // it is done; then one work-item says so, through counts[0] (every read
  // of the counts is over: COPIES = 16 fills 48 KiB with counts alone).
  DEVICE_FENCE();
  barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE);
  if (lid == 0) {
    DEVICE_FENCE();
    counts[0] = atomic_inc(&sums[PARTIAL]) == get_num_groups(0) - 1;
    DEVICE_FENCE();  // the last group reads the sums only after it knows
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  if (!counts[0]) return;

  // The last group: every other group's additions are in. Read them with
  // atomics (from where the atomics were done, not from a stale cache) and
  // leave zeros behind, so the next launch starts from zero without a fill.
  for (uint b = lid; b < PARTIAL; b += size) histogram[b] = atomic_xchg(&sums[b], 0);
  if (lid == 0) atomic_xchg(&sums[PARTIAL], 0);
}
