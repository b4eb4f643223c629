// Histogram, variant global-partials: the first program of the source post.
// Every work-item counts its own run of `chunk` consecutive pixels into its
// own 768-bin partial histogram in global memory; the host adds them up.
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
  __global uint* mine = partials + (size_t)item * PARTIAL;

  // Global memory is not zeroed for us, and the buffer is reused.
  for (uint b = 0; b < PARTIAL; ++b) mine[b] = 0;

  const uint first = item * chunk;
  const uint last = min(first + chunk, pixels);
  for (uint p = first; p < last; ++p) {
    const size_t i = (size_t)p * CHANNELS;
    mine[rgb[i]]++;
    mine[BINS + rgb[i + 1]]++;
    mine[2 * BINS + rgb[i + 2]]++;
  }
}
