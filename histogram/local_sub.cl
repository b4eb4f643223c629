// Histogram, variant local-sub: local-atomic with COPIES sub-histograms per
// work-group. Work-item lid counts into copy lid % COPIES, so when many
// work-items hit the same bin (a single-color image) their atomics land on
// COPIES different words instead of one, and wait for each other less.
//
// Bins: 256 red counts, then 256 green, then 256 blue (as PIL returns them).

#define BINS 256
#define CHANNELS 3
#define PARTIAL (CHANNELS * BINS)
#ifndef COPIES
#define COPIES 8  // the host passes -DCOPIES=N
#endif

__kernel void count(__global const uchar* rgb,    // RGBRGB..., 3 bytes a pixel
                    const uint pixels,
                    const uint chunk,            // pixels per work-item
                    __global uint* histogram) {  // PARTIAL, zeroed by the host
  // Bin-major: the copies of one bin are neighbours, so they sit in
  // different local-memory banks.
  __local uint counts[PARTIAL * COPIES];
  const uint lid = get_local_id(0);
  const uint size = get_local_size(0);
  const uint copy = lid % COPIES;

  for (uint b = lid; b < PARTIAL * COPIES; b += size) counts[b] = 0;
  barrier(CLK_LOCAL_MEM_FENCE);  // no one counts before every bin is zero

  // The group owns chunk * size consecutive pixels; its work-items take every
  // size-th one, so neighbouring work-items read neighbouring bytes.
  const uint first = get_group_id(0) * chunk * size;
  const uint last = min(first + chunk * size, pixels);
  for (uint p = first + lid; p < last; p += size) {
    const size_t i = (size_t)p * CHANNELS;
    atomic_inc(&counts[rgb[i] * COPIES + copy]);
    atomic_inc(&counts[(BINS + rgb[i + 1]) * COPIES + copy]);
    atomic_inc(&counts[(2 * BINS + rgb[i + 2]) * COPIES + copy]);
  }
  barrier(CLK_LOCAL_MEM_FENCE);  // every count is in before anyone reads one

  for (uint b = lid; b < PARTIAL; b += size) {
    uint sum = 0;
    for (uint c = 0; c < COPIES; ++c) sum += counts[b * COPIES + c];
    if (sum != 0) atomic_add(&histogram[b], sum);
  }
}
