#include "histogram/rgb_image.hpp"

#include <algorithm>
#include <cctype>
#include <climits>
#include <memory>

#define STBI_NO_STDIO  // as in common/stb_impl.cpp: decoded from memory only
#include <stb/stb_image.h>

#include "common/errors.hpp"
#include "common/image.hpp"
#include "common/parse.hpp"
#include "common/program.hpp"

namespace conv::histogram {
namespace {

void check_dimensions(const std::string& name, long long w, long long h) {
  if (w <= 0 || h <= 0)
    throw Error(name + ": image has no pixels (" + std::to_string(w) + "x" + std::to_string(h) +
                ")");
  if (w > kMaxImageSide || h > kMaxImageSide || w * h > kMaxImagePixels)
    throw Error(name + ": image size " + std::to_string(w) + "x" + std::to_string(h) +
                " is over the limit (" + std::to_string(kMaxImageSide) + " a side, " +
                std::to_string(kMaxImagePixels) + " pixels)");
}

// stb_image pads a truncated JPEG, PNM or BMP with zeros instead of failing,
// and a histogram would count those zeros: check that the data is all there.
void check_complete(const std::string& name, const std::string& b, int w, int h) {
  auto byte = [&](std::size_t i) { return static_cast<unsigned char>(b[i]); };
  if (b.size() >= 2 && byte(0) == 0xFF && byte(1) == 0xD8) {  // JPEG ends with EOI
    std::size_t end = b.size();
    while (end > 2 && byte(end - 1) == 0) --end;
    if (end < 4 || byte(end - 2) != 0xFF || byte(end - 1) != 0xD9)
      throw Error(name + ": truncated JPEG (no end-of-image marker)");
  }
  if (b.size() >= 2 && b[0] == 'P' && (b[1] == '5' || b[1] == '6')) {  // binary PGM/PPM
    std::size_t pos = 2;
    long long fields[3] = {0, 0, 0};  // width, height, maxval
    for (long long& field : fields) {
      while (pos < b.size() && (std::isspace(byte(pos)) || b[pos] == '#')) {
        if (b[pos] == '#')
          while (pos < b.size() && b[pos] != '\n') ++pos;
        else
          ++pos;
      }
      while (pos < b.size() && std::isdigit(byte(pos)) && field < (1LL << 40))
        field = field * 10 + (b[pos++] - '0');
    }
    ++pos;  // the one whitespace character before the raster
    const long long need = 1LL * w * h * (b[1] == '6' ? 3 : 1) * (fields[2] > 255 ? 2 : 1);
    if (pos > b.size() || static_cast<long long>(b.size() - pos) < need)
      throw Error(name + ": truncated " + (b[1] == '6' ? "PPM" : "PGM") +
                  " (pixel data ends early)");
  }
  if (b.size() >= 54 && b[0] == 'B' && b[1] == 'M') {  // uncompressed BMP
    auto u32 = [&](std::size_t i) {
      return byte(i) | byte(i + 1) << 8 | byte(i + 2) << 16 | std::uint32_t{byte(i + 3)} << 24;
    };
    const std::uint32_t offset = u32(10), compression = u32(30);
    const int bpp = byte(28) | byte(29) << 8;
    if (compression == 0 && bpp >= 8) {
      const std::uint64_t row = (static_cast<std::uint64_t>(w) * bpp + 31) / 32 * 4;
      if (offset + row * static_cast<std::uint64_t>(h) > b.size())
        throw Error(name + ": truncated BMP (pixel data ends early)");
    }
  }
}

struct Sized {
  int width, height;
  std::string rest;  // what followed the second colon, "" if nothing
};

Sized parse_sized_spec(const std::string& spec, const std::string& kind) {
  std::string body = spec.substr(kind.size() + 1);
  std::string rest;
  if (auto colon = body.find(':'); colon != std::string::npos) {
    rest = body.substr(colon + 1);
    body = body.substr(0, colon);
    if (rest.empty()) throw UsageError("--image " + kind + ": empty value after ':'");
  }
  auto [w, h] = parse_size(body, "--image " + kind, kMaxImageSide);
  if (static_cast<long long>(w) * h > kMaxImagePixels)
    throw UsageError("--image " + kind + ": " + body + " is over the limit of " +
                     std::to_string(kMaxImagePixels) + " pixels");
  return {w, h, rest};
}

std::uint32_t parse_seed(const std::string& text, const std::string& kind) {
  if (text.empty()) return 1;
  return static_cast<std::uint32_t>(parse_positive_int(text, "--image " + kind + " seed", 1 << 30));
}

// xorshift32: tiny, deterministic on every platform, good enough for pixels.
struct XorShift {
  std::uint32_t state;
  explicit XorShift(std::uint32_t seed) : state(seed * 2654435761u + 12345u) {
    if (state == 0) state = 1;
  }
  std::uint32_t next() {
    state ^= state << 13;
    state ^= state >> 17;
    state ^= state << 5;
    return state;
  }
};

std::uint8_t to_byte(float v) {
  return static_cast<std::uint8_t>(std::min(255.0f, std::max(0.0f, v)) + 0.5f);
}

}  // namespace

RgbImage load_rgb_image(const std::string& path) {
  const std::string bytes = read_text_file(path);  // names the file on failure
  if (bytes.empty()) throw Error(path + ": file is empty");
  if (bytes.size() >= 2 && bytes[0] == 'P' && (bytes[1] == 'f' || bytes[1] == 'F'))
    throw Error(path + ": PFM holds floating-point samples; a histogram needs an 8-bit image");
  if (bytes.size() > static_cast<std::size_t>(INT_MAX))
    throw Error(path + ": file too large to decode");
  const auto* data = reinterpret_cast<const stbi_uc*>(bytes.data());
  const int len = static_cast<int>(bytes.size());
  int w = 0, h = 0, channels = 0;
  if (!stbi_info_from_memory(data, len, &w, &h, &channels))
    throw Error(path + ": not a readable image (" + stbi_failure_reason() + ")");
  check_dimensions(path, w, h);
  check_complete(path, bytes, w, h);
  std::unique_ptr<stbi_uc, void (*)(void*)> pixels(
      stbi_load_from_memory(data, len, &w, &h, &channels, 3), stbi_image_free);
  if (!pixels) throw Error(path + ": cannot decode (" + stbi_failure_reason() + ")");
  RgbImage image;
  image.width = w;
  image.height = h;
  image.rgb.assign(pixels.get(), pixels.get() + image.pixels() * 3);
  return image;
}

RgbImage load_rgb_spec(const std::string& spec) {
  for (const std::string kind : {"synthetic", "noise", "solid"}) {
    if (spec.rfind(kind + ":", 0) != 0) continue;
    const Sized s = parse_sized_spec(spec, kind);
    if (kind == "synthetic") return synthetic_rgb(s.width, s.height, parse_seed(s.rest, kind));
    if (kind == "noise") return noise_rgb(s.width, s.height, parse_seed(s.rest, kind));
    const std::string hex = s.rest.empty() ? "808080" : s.rest;
    if (hex.size() != 6 ||
        !std::all_of(hex.begin(), hex.end(), [](unsigned char c) { return std::isxdigit(c) != 0; }))
      throw UsageError("--image solid: color must be six hex digits RRGGBB, got '" + hex + "'");
    const unsigned long c = std::stoul(hex, nullptr, 16);
    return solid_rgb(s.width, s.height, static_cast<std::uint8_t>(c >> 16),
                     static_cast<std::uint8_t>(c >> 8), static_cast<std::uint8_t>(c));
  }
  return load_rgb_image(spec);
}

RgbImage synthetic_rgb(int width, int height, std::uint32_t seed) {
  RgbImage image;
  image.width = width;
  image.height = height;
  image.rgb.resize(image.pixels() * 3);
  XorShift rng(seed);
  struct Disc {
    float cx, cy, r2;
    std::uint8_t color[3];
  };
  Disc discs[5];
  for (auto& d : discs) {
    d.cx = (rng.next() % 1000) / 1000.0f;
    d.cy = (rng.next() % 1000) / 1000.0f;
    const float r = 0.04f + (rng.next() % 150) / 1000.0f;
    d.r2 = r * r;
    for (auto& c : d.color) c = static_cast<std::uint8_t>(rng.next() >> 24);
  }
  std::uint8_t* out = image.rgb.data();
  for (int y = 0; y < height; ++y) {
    const float v = (y + 0.5f) / height;
    for (int x = 0; x < width; ++x, out += 3) {
      const float u = (x + 0.5f) / width;
      const float checker = ((x / 64 + y / 64) % 2) ? 24.0f : 0.0f;
      const std::uint32_t noise = rng.next();
      // Smooth ramps, a hard-edged checkerboard and +-8 levels of noise:
      // broad humps in every channel's histogram.
      out[0] = to_byte(220.0f * u + checker + static_cast<float>(noise & 15) - 8.0f);
      out[1] = to_byte(200.0f * v + 40.0f * u + static_cast<float>((noise >> 8) & 15) - 8.0f);
      out[2] = to_byte(255.0f * (1.0f - 0.5f * (u + v)) + checker +
                       static_cast<float>((noise >> 16) & 15) - 8.0f);
      for (const auto& d : discs)  // flat discs: tall spikes in the histogram
        if ((u - d.cx) * (u - d.cx) + (v - d.cy) * (v - d.cy) < d.r2) {
          out[0] = d.color[0];
          out[1] = d.color[1];
          out[2] = d.color[2];
        }
    }
  }
  return image;
}

RgbImage noise_rgb(int width, int height, std::uint32_t seed) {
  RgbImage image;
  image.width = width;
  image.height = height;
  image.rgb.resize(image.pixels() * 3);
  XorShift rng(seed);
  for (auto& byte : image.rgb) byte = static_cast<std::uint8_t>(rng.next() >> 24);
  return image;
}

RgbImage solid_rgb(int width, int height, std::uint8_t r, std::uint8_t g, std::uint8_t b) {
  RgbImage image;
  image.width = width;
  image.height = height;
  image.rgb.resize(image.pixels() * 3);
  for (std::size_t i = 0; i < image.rgb.size(); i += 3) {
    image.rgb[i] = r;
    image.rgb[i + 1] = g;
    image.rgb[i + 2] = b;
  }
  return image;
}

}  // namespace conv::histogram
