// Histogram, variant device-merge: the private variant's counting kernel,
// plus a kernel that adds the partials up on the device, so that 3 KiB come
// back to the host instead of 3 KiB per work-item.
//
// Bins: 256 red counts, then 256 green, then 256 blue (as PIL returns them).

#define BINS 256
#define CHANNELS 3
#define PARTIAL (CHANNELS * BINS)

__kernel void count(__global const uchar* rgb,   // RGBRGB..., 3 bytes a pixel
                    const uint pixels,
                    const uint chunk,           // pixels per work-item
                    const uint items,           // ceil(pixels / chunk)
                    __global uint* partials) {  // items x PARTIAL
  const uint item = get_global_id(0);
  // The global size was rounded up to the work-group: spare items do nothing.
  if (item >= items) return;
  uint counts[PARTIAL];

  // Private memory starts with whatever was there: zero it, or count garbage.
  for (uint b = 0; b < PARTIAL; ++b) counts[b] = 0;

  const uint first = item * chunk;
  const uint last = min(first + chunk, pixels);
  for (uint p = first; p < last; ++p) {
    const size_t i = (size_t)p * CHANNELS;
    counts[rgb[i]]++;
    counts[BINS + rgb[i + 1]]++;
    counts[2 * BINS + rgb[i + 2]]++;
  }

  __global uint* mine = partials + (size_t)item * PARTIAL;
  for (uint b = 0; b < PARTIAL; ++b) mine[b] = counts[b];
}

// Adds `rows` partial histograms into `out_rows` rows: work-item (b, s) sums
// bin b of the s-th run of consecutive rows. The host calls it twice,
// partials -> out_rows slices -> 1 histogram. Only the end of a kernel makes
// its writes visible to every work-group of the next one: a barrier waits
// for the work-items of one work-group and for no one else.
__kernel void merge(__global const uint* in,    // rows x PARTIAL
                    const uint rows,
                    const uint out_rows,
                    __global uint* out) {       // out_rows x PARTIAL
  const uint b = get_global_id(0);
  const uint s = get_global_id(1);
  if (b >= PARTIAL || s >= out_rows) return;
  const uint per_slice = (rows + out_rows - 1) / out_rows;
  const uint end = min(rows, (s + 1) * per_slice);
  uint sum = 0;
  // Neighbouring work-items read neighbouring bins of the same row.
  for (uint r = s * per_slice; r < end; ++r) sum += in[(size_t)r * PARTIAL + b];
  out[(size_t)s * PARTIAL + b] = sum;
}
