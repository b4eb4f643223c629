// Histogram, variant private: the same split of the pixels, but each
// work-item counts into an array of its own (registers or stack) and copies
// the 768 counts out once at the end.
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
