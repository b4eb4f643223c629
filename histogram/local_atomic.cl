// Histogram, variant local-atomic: one histogram per work-group in local
// memory, counted with atomic increments by all of the group's work-items,
// then added into the result with one global atomic per non-empty bin.
// Nothing is merged on the host and no partials travel through global memory.
//
// Bins: 256 red counts, then 256 green, then 256 blue (as PIL returns them).

#define BINS 256
#define CHANNELS 3
#define PARTIAL (CHANNELS * BINS)

__kernel void count(__global const uchar* rgb,    // RGBRGB..., 3 bytes a pixel
                    const uint pixels,
                    const uint chunk,            // pixels per work-item
                    __global uint* histogram) {  // PARTIAL, zeroed by the host
  __local uint counts[PARTIAL];
  const uint lid = get_local_id(0);
  const uint size = get_local_size(0);

  for (uint b = lid; b < PARTIAL; b += size) counts[b] = 0;
  barrier(CLK_LOCAL_MEM_FENCE);  // no one counts before every bin is zero

  // The group owns chunk * size consecutive pixels; its work-items take every
  // size-th one, so neighbouring work-items read neighbouring bytes.
  const uint first = get_group_id(0) * chunk * size;
  const uint last = min(first + chunk * size, pixels);
  for (uint p = first + lid; p < last; p += size) {
    const size_t i = (size_t)p * CHANNELS;
    atomic_inc(&counts[rgb[i]]);
    atomic_inc(&counts[BINS + rgb[i + 1]]);
    atomic_inc(&counts[2 * BINS + rgb[i + 2]]);
  }
  barrier(CLK_LOCAL_MEM_FENCE);  // every count is in before anyone reads one

  for (uint b = lid; b < PARTIAL; b += size)
    if (counts[b] != 0) atomic_add(&histogram[b], counts[b]);
}
