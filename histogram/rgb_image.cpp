#include "histogram/rgb_image.hpp"

#include <algorithm>
#include <cctype>
#include <climits>
#include <memory>

#define STBI_NO_STDIO  // as in common/machinery/stb_impl.cpp: decoded from memory only
#include <stb_image.h>

#include "common/core/errors.hpp"
#include "common/core/program.hpp"
#include "common/machinery/files.hpp"
#include "common/machinery/netpbm.hpp"
#include "common/machinery/parse.hpp"

namespace conv::histogram {
namespace {

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

// The one rule for every sample of more than 8 bits (a PGM/PPM of any
// maximum value, a 16-bit PNG): v * 255 / maxval, rounded to nearest
// (halves up), so 65381 of 65535 is 254 from every format.
std::uint8_t to_8_bits(std::uint32_t v, std::uint32_t maxval) {
  return static_cast<std::uint8_t>((v * 255 + maxval / 2) / maxval);
}

RgbImage to_rgb8(const PnmRaster& r) {
  RgbImage image;
  image.width = r.width;
  image.height = r.height;
  image.rgb.resize(image.pixels() * 3);
  for (std::size_t i = 0; i < image.rgb.size(); ++i)
    image.rgb[i] = to_8_bits(r.samples[r.channels == 3 ? i : i / 3], static_cast<std::uint32_t>(r.maxval));
  return image;
}

}  // namespace

RgbImage load_rgb_image(const std::string& path) {
  const std::vector<std::uint8_t> bytes = read_image_file(path);  // names the file on failure
  if (bytes.size() >= 2 && bytes[0] == 'P' && (bytes[1] == 'f' || bytes[1] == 'F'))
    throw Error(path + ": PFM holds floating-point samples; a histogram needs an 8-bit image");
  if (looks_like_pnm(bytes)) return to_rgb8(decode_pnm(bytes, path));
  // The same checks as the convolution's loader: sizes, truncation, and the
  // inputs stb_image would mishandle.
  auto [w, h, channels] = check_image_bytes(path, bytes);
  const int len = static_cast<int>(bytes.size());
  if (stbi_is_16_bit_from_memory(bytes.data(), len)) {  // not stb_image's own v >> 8: to_8_bits
    std::unique_ptr<stbi_us, void (*)(void*)> wide(stbi_load_16_from_memory(bytes.data(), len, &w, &h, &channels, 3),
                                                   stbi_image_free);
    if (!wide) throw Error(path + ": cannot decode (" + decoder_complaint() + ")");
    RgbImage image;
    image.width = w;
    image.height = h;
    image.rgb.resize(image.pixels() * 3);
    for (std::size_t i = 0; i < image.rgb.size(); ++i) image.rgb[i] = to_8_bits(wide.get()[i], 65535);
    return image;
  }
  std::unique_ptr<stbi_uc, void (*)(void*)> pixels(
      stbi_load_from_memory(bytes.data(), static_cast<int>(bytes.size()), &w, &h, &channels, 3),
      stbi_image_free);
  if (!pixels) throw Error(path + ": cannot decode (" + decoder_complaint() + ")");
  RgbImage image;
  image.width = w;
  image.height = h;
  image.rgb.assign(pixels.get(), pixels.get() + image.pixels() * 3);
  return image;
}

namespace {

// A generated image's spec, parsed and checked; its kind is empty for a file.
struct GeneratedSpec {
  std::string kind;
  int width = 0, height = 0;
  std::uint32_t seed = 1;
  std::uint8_t color[3] = {0x80, 0x80, 0x80};
};

GeneratedSpec parse_generated(const std::string& spec) {
  GeneratedSpec g;
  for (const std::string kind : {"synthetic", "noise", "solid"}) {
    if (spec.rfind(kind + ":", 0) != 0) continue;
    const Sized s = parse_sized_spec(spec, kind);
    g.kind = kind;
    g.width = s.width;
    g.height = s.height;
    if (kind != "solid") {
      g.seed = parse_seed(s.rest, kind);
      return g;
    }
    const std::string hex = s.rest.empty() ? "808080" : s.rest;
    if (hex.size() != 6 ||
        !std::all_of(hex.begin(), hex.end(), [](unsigned char c) { return std::isxdigit(c) != 0; }))
      throw UsageError("--image solid: color must be six hex digits RRGGBB, got '" + hex + "'");
    const unsigned long c = std::stoul(hex, nullptr, 16);
    g.color[0] = static_cast<std::uint8_t>(c >> 16);
    g.color[1] = static_cast<std::uint8_t>(c >> 8);
    g.color[2] = static_cast<std::uint8_t>(c);
    return g;
  }
  return g;
}

}  // namespace

RgbImage load_rgb_spec(const std::string& spec) {
  if (spec.empty()) throw UsageError("--image: empty; name a file, or synthetic:WxH, noise:WxH, solid:WxH");
  const GeneratedSpec g = parse_generated(spec);
  if (g.kind == "synthetic") return synthetic_rgb(g.width, g.height, g.seed);
  if (g.kind == "noise") return noise_rgb(g.width, g.height, g.seed);
  if (g.kind == "solid") return solid_rgb(g.width, g.height, g.color[0], g.color[1], g.color[2]);
  return load_rgb_image(spec);
}

void check_rgb_spec(const std::string& spec) {
  if (spec.empty()) throw UsageError("--image: empty; name a file, or synthetic:WxH, noise:WxH, solid:WxH");
  if (parse_generated(spec).kind.empty()) load_rgb_image(spec);
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
