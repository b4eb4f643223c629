// 8-bit RGB images for the histogram: loading (stb_image, three channels),
// and the generated images the lesson measures (synthetic, noise, solid).
// The harness's load_image() turns color into gray, which is no use here.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace conv::histogram {

struct RgbImage {
  int width = 0;
  int height = 0;
  std::vector<std::uint8_t> rgb;  // RGBRGB..., row-major, 3 * width * height bytes

  std::size_t pixels() const { return static_cast<std::size_t>(width) * height; }
};

// PNG, JPEG, BMP, PGM/PPM or TGA. Gray is replicated into R, G and B; alpha
// is dropped; samples of more than 8 bits (16-bit PNG, PGM/PPM with any
// maximum value) are scaled to 8 bits by one rule, round(v * 255 / maxval),
// maxval 65535 for a PNG. Throws
// Error naming the file (missing, empty, corrupt, truncated, too large).
RgbImage load_rgb_image(const std::string& path);

// A file path, or one of
//   synthetic:WxH[:SEED]   gradients, discs, a checkerboard and noise (seed 1)
//   noise:WxH[:SEED]       every byte uniformly random: the least contention
//   solid:WxH[:RRGGBB]     one color everywhere (808080): the most contention
// Throws UsageError for a malformed spec.
RgbImage load_rgb_spec(const std::string& spec);

// Throws what load_rgb_spec(spec) would, without keeping an image: a
// generated image's spec is parsed only, a file is read and decoded, then
// dropped. For a run that checks all its images first and loads each in turn.
void check_rgb_spec(const std::string& spec);

RgbImage synthetic_rgb(int width, int height, std::uint32_t seed);
RgbImage noise_rgb(int width, int height, std::uint32_t seed);
RgbImage solid_rgb(int width, int height, std::uint8_t r, std::uint8_t g, std::uint8_t b);

}  // namespace conv::histogram
