// Histogram, variant lane-copies: one-launch with a copy of the histogram
// for every lane of a 32-wide warp, and two loads in flight. Two changes:
//  - Counters of 16 bits, two bins to a 32-bit word: 768 bins are 384
//    words, and 32 copies of them are the 48 KiB of local memory an NVIDIA
//    GPU gives a group. Counter word `(bin / 2) * COPIES + lid % COPIES`:
//    with COPIES = 32 a lane's increments all land in its own bank and its
//    own words, so a warp's 32 atomics never share a bank or an address,
//    whatever the image. An increment adds 1 << 16 for an odd bin, 1 for an
//    even one; the host refuses a launch in which a 16-bit counter could
//    reach 65536 and carry into its neighbour (histogram/variants.cpp).
//  - Each work-item loads LOADS 16-byte vectors before it counts any of
//    them, so more of the image is on its way from memory at once.
// The rest (the channel of byte j of vector v is (v + j) % 3, the running
// sums, the last group's merge) is one-launch's, unchanged.
//
// Bins: 256 red counts, then 256 green, then 256 blue (as PIL returns them).

#define BINS 256
#define CHANNELS 3
#define PARTIAL (CHANNELS * BINS)
#define WORDS (PARTIAL / 2)
#ifndef COPIES
#define COPIES 1
#endif
#ifndef LOADS
#define LOADS 2
#endif

// A fence for the whole device (one_launch.cl says why PTX on NVIDIA).
#ifdef __NV_CL_C_VERSION
#define DEVICE_FENCE() asm volatile("membar.gl;" ::: "memory")
#else
#define DEVICE_FENCE() mem_fence(CLK_GLOBAL_MEM_FENCE)
#endif

#define ADD(bin) atomic_add(&counts[((bin) >> 1) * COPIES + copy], 1u << (((bin) & 1) << 4))
// ADD(o + x) for a channel offset o (even), with (o / 2) * COPIES + copy
// worked out once per vector as `base`.
#define ADD_AT(base, x) atomic_add(&counts[(base) + ((x) >> 1) * COPIES], 1u << (((x) & 1) << 4))

// The 16 bytes of vector v, each into its channel's bins: bytes 0, 3, 6, ...
// at base b0, bytes 1, 4, 7, ... at b1, bytes 2, 5, 8, ... at b2.
#define COUNT16(x, v)                                                 \
  do {                                                                \
    const uint c = (uint)((v) % 3);                                   \
    const uint b0 = c * (BINS / 2) * COPIES + copy;                   \
    const uint b1 = (c == 2 ? 0 : c + 1) * (BINS / 2) * COPIES + copy; \
    const uint b2 = (c == 0 ? 2 : c - 1) * (BINS / 2) * COPIES + copy; \
    ADD_AT(b0, (x).s0); ADD_AT(b1, (x).s1); ADD_AT(b2, (x).s2);       \
    ADD_AT(b0, (x).s3); ADD_AT(b1, (x).s4); ADD_AT(b2, (x).s5);       \
    ADD_AT(b0, (x).s6); ADD_AT(b1, (x).s7); ADD_AT(b2, (x).s8);       \
    ADD_AT(b0, (x).s9); ADD_AT(b1, (x).sa); ADD_AT(b2, (x).sb);       \
    ADD_AT(b0, (x).sc); ADD_AT(b1, (x).sd); ADD_AT(b2, (x).se);       \
    ADD_AT(b0, (x).sf);                                               \
  } while (0)

__kernel void count(__global const uchar* rgb,  // RGBRGB..., 3 bytes a pixel
                    const uint pixels,
                    const uint chunk,           // pixels per work-item
                    __global uint* sums,        // PARTIAL sums, then groups done; all zero
                    __global uint* histogram) { // PARTIAL, written by the last group
  __local uint counts[WORDS * COPIES];
  const uint lid = get_local_id(0);
  const uint size = get_local_size(0);
  const uint copy = lid % COPIES;

  for (uint i = lid; i < WORDS * COPIES; i += size) counts[i] = 0;
  barrier(CLK_LOCAL_MEM_FENCE);

  // The group owns the bytes [first, last) of the image.
  const size_t first = (size_t)get_group_id(0) * chunk * size * CHANNELS;
  const size_t last = min(first + (size_t)chunk * size * CHANNELS, (size_t)pixels * CHANNELS);
  const size_t first_vec = (first + 15) / 16;
  const size_t end_vec = max(first_vec, last / 16);
  __global const uint4* vecs = (__global const uint4*)rgb;
  for (size_t v = first_vec + lid; v < end_vec; v += LOADS * size) {
    uchar16 x[LOADS];
    // Every load first, then every count: the loads do not wait for atomics.
    for (uint k = 0; k < LOADS; ++k)
      x[k] = v + k * size < end_vec ? as_uchar16(vecs[v + k * size]) : (uchar16)(0);
    for (uint k = 0; k < LOADS; ++k)
      if (v + k * size < end_vec) COUNT16(x[k], v + k * size);
  }
  // The bytes before the first whole vector and after the last: 15 at most each.
  for (size_t i = first + lid; i < min(16 * first_vec, last); i += size)
    ADD((uint)(i % 3) * BINS + rgb[i]);
  for (size_t i = 16 * end_vec + lid; i < last; i += size) ADD((uint)(i % 3) * BINS + rgb[i]);
  barrier(CLK_LOCAL_MEM_FENCE);  // every count is in before anyone reads one

  for (uint b = lid; b < PARTIAL; b += size) {
    const uint shift = (b & 1) << 4;
    uint sum = 0;
    // Starting at copy b % COPIES spreads neighbouring work-items over the banks.
    for (uint k = 0; k < COPIES; ++k)
      sum += (counts[(b >> 1) * COPIES + (b + k) % COPIES] >> shift) & 0xffffu;
    if (sum != 0) atomic_add(&sums[b], sum);
  }
  // As in one-launch: the additions reach the device before the group says
  // it is done, and the last group moves the sums out and leaves zeros.
  DEVICE_FENCE();
  barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE);
  if (lid == 0) {
    DEVICE_FENCE();
    counts[0] = atomic_inc(&sums[PARTIAL]) == get_num_groups(0) - 1;
    DEVICE_FENCE();
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  if (!counts[0]) return;

  for (uint b = lid; b < PARTIAL; b += size) histogram[b] = atomic_xchg(&sums[b], 0);
  if (lid == 0) atomic_xchg(&sums[PARTIAL], 0);
}
