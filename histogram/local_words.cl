// Histogram, variant local-words: local-atomic, but four pixels at a time.
// Twelve bytes (four RGB pixels) are three aligned 32-bit words: one load
// each instead of one per byte, so a work-item issues a quarter of the loads.
// Only the up to three pixels before the first whole group of four and after
// the last are still read byte by byte.
//
// Bins: 256 red counts, then 256 green, then 256 blue (as PIL returns them).

#define BINS 256
#define CHANNELS 3
#define PARTIAL (CHANNELS * BINS)

void count_pixel(__local uint* counts, __global const uchar* rgb, const uint p) {
  const size_t i = (size_t)p * CHANNELS;
  atomic_inc(&counts[rgb[i]]);
  atomic_inc(&counts[BINS + rgb[i + 1]]);
  atomic_inc(&counts[2 * BINS + rgb[i + 2]]);
}

__kernel void count(__global const uchar* rgb,    // RGBRGB..., 3 bytes a pixel
                    const uint pixels,
                    const uint chunk,            // pixels per work-item
                    __global uint* histogram) {  // PARTIAL, zeroed by the host
  __local uint counts[PARTIAL];
  const uint lid = get_local_id(0);
  const uint size = get_local_size(0);

  for (uint b = lid; b < PARTIAL; b += size) counts[b] = 0;
  barrier(CLK_LOCAL_MEM_FENCE);  // no one counts before every bin is zero

  // The group owns chunk * size consecutive pixels. Quad q is pixels 4q to
  // 4q + 3, bytes 12q to 12q + 11: words 3q, 3q + 1 and 3q + 2 of the image.
  const uint first = get_group_id(0) * chunk * size;
  const uint last = min(first + chunk * size, pixels);
  const uint first_quad = (first + 3) / 4;
  const uint end_quad = max(first_quad, last / 4);
  __global const uint* words = (__global const uint*)rgb;
  for (uint q = first_quad + lid; q < end_quad; q += size) {
    // as_uchar4 keeps memory order, so this holds on any endianness.
    const uchar4 a = as_uchar4(words[3 * (size_t)q]);      // R0 G0 B0 R1
    const uchar4 b = as_uchar4(words[3 * (size_t)q + 1]);  // G1 B1 R2 G2
    const uchar4 c = as_uchar4(words[3 * (size_t)q + 2]);  // B2 R3 G3 B3
    atomic_inc(&counts[a.x]);
    atomic_inc(&counts[BINS + a.y]);
    atomic_inc(&counts[2 * BINS + a.z]);
    atomic_inc(&counts[a.w]);
    atomic_inc(&counts[BINS + b.x]);
    atomic_inc(&counts[2 * BINS + b.y]);
    atomic_inc(&counts[b.z]);
    atomic_inc(&counts[BINS + b.w]);
    atomic_inc(&counts[2 * BINS + c.x]);
    atomic_inc(&counts[c.y]);
    atomic_inc(&counts[BINS + c.z]);
    atomic_inc(&counts[2 * BINS + c.w]);
  }
  // The pixels before the first quad and after the last: three at most each.
  for (uint p = first + lid; p < min(4 * first_quad, last); p += size)
    count_pixel(counts, rgb, p);
  for (uint p = 4 * end_quad + lid; p < last; p += size) count_pixel(counts, rgb, p);
  barrier(CLK_LOCAL_MEM_FENCE);  // every count is in before anyone reads one

  for (uint b = lid; b < PARTIAL; b += size)
    if (counts[b] != 0) atomic_add(&histogram[b], counts[b]);
}
