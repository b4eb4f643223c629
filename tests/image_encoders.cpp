#include "tests/image_encoders.hpp"

#include <stdexcept>

#define STBI_WRITE_NO_STDIO
#include <stb_image_write.h>

namespace conv::test {

std::vector<std::uint8_t> encode(const std::string& format, int w, int h, int channels,
                                 const std::vector<std::uint8_t>& pixels) {
  std::vector<std::uint8_t> out;
  auto sink = [](void* ctx, void* data, int size) {
    auto* o = static_cast<std::vector<std::uint8_t>*>(ctx);
    o->insert(o->end(), static_cast<std::uint8_t*>(data), static_cast<std::uint8_t*>(data) + size);
  };
  if (format == "pgm" || format == "ppm") {
    std::string header = std::string(channels == 1 ? "P5" : "P6") + "\n" + std::to_string(w) +
                         " " + std::to_string(h) + "\n255\n";
    out.assign(header.begin(), header.end());
    out.insert(out.end(), pixels.begin(), pixels.end());
    return out;
  }
  int ok = 0;
  if (format == "png") ok = stbi_write_png_to_func(sink, &out, w, h, channels, pixels.data(), w * channels);
  if (format == "bmp") ok = stbi_write_bmp_to_func(sink, &out, w, h, channels, pixels.data());
  if (format == "tga") ok = stbi_write_tga_to_func(sink, &out, w, h, channels, pixels.data());
  if (format == "jpg") ok = stbi_write_jpg_to_func(sink, &out, w, h, channels, pixels.data(), 95);
  if (!ok) throw std::runtime_error("cannot encode " + format);
  return out;
}

}  // namespace conv::test
