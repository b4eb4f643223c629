#include "common/image.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <memory>
#include <sstream>

#define STBI_NO_STDIO
#define STBI_WRITE_NO_STDIO
#include <stb/stb_image.h>
#include <stb/stb_image_write.h>

#include "common/errors.hpp"
#include "common/netpbm.hpp"
#include "common/parse.hpp"
#include "common/program.hpp"

namespace conv {
namespace fs = std::filesystem;

namespace {

constexpr const char* kSupportedFormats = "PNG, JPEG, BMP, TGA, PGM, PPM or PFM";

std::string lower_extension(const std::string& path) {
  std::string ext = fs::path(path).extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return ext;
}

void check_dimensions(const std::string& name, std::int64_t w, std::int64_t h) {
  if (w <= 0 || h <= 0)
    throw Error(name + ": image has no pixels (" + std::to_string(w) + "x" + std::to_string(h) +
                ")");
  if (w > kMaxImageSide || h > kMaxImageSide || w * h > kMaxImagePixels)
    throw Error(name + ": image size " + std::to_string(w) + "x" + std::to_string(h) +
                " is over the limit (" + std::to_string(kMaxImageSide) + " a side, " +
                std::to_string(kMaxImagePixels) + " pixels)");
}

// Formats stb_image could decode but this project does not promise (their
// decoders are compiled out, common/stb_impl.cpp): named, so the refusal
// says what the file is.
void check_supported_format(const std::string& name, const std::vector<std::uint8_t>& b) {
  auto starts = [&](const char* magic) {
    const std::size_t n = std::strlen(magic);
    return b.size() >= n && std::memcmp(b.data(), magic, n) == 0;
  };
  const char* format = starts("GIF8")                              ? "GIF"
                       : starts("8BPS")                            ? "PSD"
                       : starts("#?RADIANCE") || starts("#?RGBE") ? "Radiance HDR"
                       : starts("\x53\x80\xF6\x34")                ? "Softimage PIC"
                                                                   : nullptr;
  if (format)
    throw Error(name + ": " + format + " is not a supported format (" + kSupportedFormats + ")");
}

// The bytes a TGA raster needs, walked packet by packet when run-length
// coded; false when the file ends first. stb_image reads zeros past the end.
// `hdr` is the header (18 bytes, zero-padded as stb_image reads it), `b`
// the whole file.
bool tga_complete(const std::vector<std::uint8_t>& hdr, const std::vector<std::uint8_t>& b, int w,
                  int h) {
  const bool indexed = hdr[1] == 1;
  const int palette_bits = hdr[7], bits = hdr[16];
  std::size_t pos = 18 + hdr[0];
  if (pos > b.size()) return false;  // the header itself is cut short
  if (indexed)  // stb_image skips the first-entry index, then reads the palette
    pos += (hdr[3] | hdr[4] << 8) + static_cast<std::size_t>(hdr[5] | hdr[6] << 8) * ((palette_bits + 7) / 8);
  const std::size_t pixel = indexed ? (bits == 8 ? 1 : 2) : (bits + 7) / 8;
  if (pixel == 0) return true;  // stb_image refuses those itself
  std::size_t left = static_cast<std::size_t>(w) * h;
  if (hdr[2] < 8) return pos <= b.size() && (b.size() - pos) / pixel >= left;
  while (left > 0) {  // run-length coded: a count byte, then one or `count` pixels
    if (pos >= b.size()) return false;
    const std::size_t count = std::min<std::size_t>((b[pos] & 127) + 1, left);
    pos += 1 + ((b[pos] & 128) ? pixel : count * pixel);
    left -= count;
  }
  return pos <= b.size();
}

// TGA has no magic number; every other format's second byte is above 1.
// `hdr` is the first 18 bytes, zero-padded.
bool looks_like_tga(const std::vector<std::uint8_t>& hdr, int w, int h) {
  if (hdr[1] > 1) return false;
  const int type = hdr[2] & ~8;  // 8: run-length coded
  return type >= 1 && type <= 3 && (hdr[12] | hdr[13] << 8) == w && (hdr[14] | hdr[15] << 8) == h;
}

// Where a JPEG's markers start (just after its start-of-image marker, which
// stb_image accepts after any number of 0xFF fill bytes), or 0 when `b` is
// not a JPEG.
std::size_t jpeg_body(const std::vector<std::uint8_t>& b) {
  std::size_t p = 0;
  while (p < b.size() && b[p] == 0xFF) ++p;
  return p > 0 && p < b.size() && b[p] == 0xD8 ? p + 1 : 0;
}

// stb_image 2.27 writes past its Huffman tables when one DHT table claims
// more than 256 codes, so every DHT segment of a JPEG is checked first:
// the markers are walked (entropy-coded data skipped) up to the end.
void check_jpeg_huffman(const std::string& name, const std::vector<std::uint8_t>& b) {
  std::size_t pos = jpeg_body(b);
  if (pos == 0) return;
  while (pos + 1 < b.size()) {
    if (b[pos] != 0xFF) {  // entropy-coded data between markers
      ++pos;
      continue;
    }
    const int marker = b[pos + 1];
    if (marker == 0xFF || marker == 0x00 || marker == 0x01 || (marker >= 0xD0 && marker <= 0xD7)) {
      pos += marker == 0xFF ? 1 : 2;  // fill byte, stuffed zero, TEM or restart: no length
      continue;
    }
    if (marker == 0xD9 || pos + 4 > b.size()) return;  // end of image, or of the file
    const std::size_t length = static_cast<std::size_t>(b[pos + 2]) << 8 | b[pos + 3];
    if (marker == 0xC4) {  // DHT: tables of (class/id, 16 counts, the values)
      // As stb_image reads it: a table starts wherever the segment has a
      // byte left, and bytes past the end of the file read as zeros.
      auto byte = [&](std::size_t i) { return i < b.size() ? b[i] : std::uint8_t{0}; };
      std::size_t t = pos + 4;
      const std::size_t end = pos + 2 + length;
      while (t < end && t < b.size()) {
        std::size_t codes = 0;
        for (int i = 1; i <= 16; ++i) codes += byte(t + i);
        if (codes > 256)
          throw Error(name + ": corrupt JPEG (a Huffman table claims " + std::to_string(codes) +
                      " codes, at most 256)");
        t += 17 + codes;
      }
    }
    pos += 2 + std::max<std::size_t>(length, 2);
  }
}

// stb_image decodes some truncated files without complaint (it pads missing
// bytes with zeros), so the formats where that happens are checked here.
void check_not_truncated(const std::string& name, const std::vector<std::uint8_t>& b, int w,
                         int h) {
  auto u16 = [&](std::size_t i) { return b[i] | (b[i + 1] << 8); };
  auto u32 = [&](std::size_t i) {
    return static_cast<std::uint32_t>(b[i] | (b[i + 1] << 8) | (b[i + 2] << 16)) |
           (static_cast<std::uint32_t>(b[i + 3]) << 24);
  };
  if (jpeg_body(b) > 0) {  // JPEG: must end with EOI
    std::size_t end = b.size();
    while (end > 2 && b[end - 1] == 0) --end;  // tolerate zero padding after EOI
    if (end < 4 || b[end - 2] != 0xFF || b[end - 1] != 0xD9)
      throw Error(name + ": truncated JPEG (no end-of-image marker)");
  }
  if (b.size() >= 54 && b[0] == 'B' && b[1] == 'M') {  // uncompressed BMP: pixel bytes present?
    std::uint32_t offset = u32(10);
    int bpp = u16(28);
    std::uint32_t compression = u32(30);
    if (compression == 0 && bpp >= 8) {
      std::uint64_t row = ((static_cast<std::uint64_t>(w) * bpp + 31) / 32) * 4;
      if (offset + row * static_cast<std::uint64_t>(h) > b.size())
        throw Error(name + ": truncated BMP (pixel data ends early)");
    }
  }
  std::vector<std::uint8_t> hdr(b.begin(), b.begin() + std::min<std::size_t>(b.size(), 18));
  hdr.resize(18, 0);  // stb_image reads a short header as zeros
  if (looks_like_tga(hdr, w, h) && !tga_complete(hdr, b, w, h))
    throw Error(name + ": truncated TGA (pixel data ends early)");
}

float luma(float r, float g, float b) { return 0.299f * r + 0.587f * g + 0.114f * b; }

template <typename T>
Image to_gray(const T* data, int w, int h, int channels, float max_value) {
  Image img(w, h);
  const std::size_t n = static_cast<std::size_t>(w) * h;
  for (std::size_t i = 0; i < n; ++i) {
    const T* p = data + i * channels;
    float v;
    if (channels >= 3 && p[0] == p[1] && p[1] == p[2])
      v = p[0] / max_value;  // gray stored as RGB (BMP, JPEG) stays exact
    else if (channels >= 3)
      v = luma(p[0] / max_value, p[1] / max_value, p[2] / max_value);
    else
      v = p[0] / max_value;  // gray or gray+alpha: alpha is ignored
    img.pixels[i] = v;
  }
  return img;
}

}  // namespace

std::vector<std::uint8_t> read_image_file(const std::string& path) {
  require_regular_file(path, "an image file");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(path + ": cannot open: " + std::strerror(errno));
  in.seekg(0, std::ios::end);
  std::streamoff size = in.tellg();
  if (size < 0) throw Error(path + ": cannot read");
  if (size == 0) throw Error(path + ": file is empty");
  if (size > (std::streamoff{1} << 32)) throw Error(path + ": file is larger than 4 GiB");
  in.seekg(0);
  std::vector<std::uint8_t> bytes(static_cast<std::size_t>(size));
  in.read(reinterpret_cast<char*>(bytes.data()), size);
  if (!in) throw Error(path + ": read failed");
  return bytes;
}

std::string decoder_complaint() {
  std::string text = stbi_failure_reason() ? stbi_failure_reason() : "unknown reason";
  for (char& c : text)  // stb_image quotes raw chunk bytes: keep the message one printable line
    if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) > 0x7E) c = '?';
  return text;
}

ImageInfo check_image_bytes(const std::string& name, const std::vector<std::uint8_t>& bytes) {
  if (bytes.size() > static_cast<std::size_t>(std::numeric_limits<int>::max()))
    throw Error(name + ": file too large to decode");
  check_supported_format(name, bytes);
  check_jpeg_huffman(name, bytes);
  ImageInfo info;
  if (!stbi_info_from_memory(bytes.data(), static_cast<int>(bytes.size()), &info.width, &info.height,
                             &info.channels))
    throw Error(name + ": not an image in a supported format (" + std::string(kSupportedFormats) +
                ")");
  std::int64_t height = info.height;  // stb_image reports a top-down BMP's height as negative
  if (height < 0 && bytes[0] == 'B' && bytes[1] == 'M') height = -height;
  check_dimensions(name, info.width, height);
  info.height = static_cast<int>(height);
  check_not_truncated(name, bytes, info.width, info.height);
  return info;
}

std::vector<std::uint8_t> encode_pfm(const Image& image) {
  std::ostringstream header;
  header << "Pf\n" << image.width << ' ' << image.height << "\n-1.0\n";
  std::string h = header.str();
  std::vector<std::uint8_t> out(h.begin(), h.end());
  out.reserve(out.size() + image.pixels.size() * 4);
  for (int y = image.height - 1; y >= 0; --y)
    for (int x = 0; x < image.width; ++x) {
      std::uint32_t u;
      float v = image.at(x, y);
      std::memcpy(&u, &v, 4);
      for (int k = 0; k < 4; ++k) out.push_back(static_cast<std::uint8_t>(u >> (8 * k)));
    }
  return out;
}

Image load_image(const std::string& path) {
  std::vector<std::uint8_t> bytes = read_image_file(path);
  if (looks_like_pfm(bytes)) return decode_pfm(bytes, path);
  if (looks_like_pnm(bytes)) return pnm_to_gray(decode_pnm(bytes, path));
  auto [w, h, channels] = check_image_bytes(path, bytes);
  const int len = static_cast<int>(bytes.size());
  if (stbi_is_16_bit_from_memory(bytes.data(), len)) {
    std::unique_ptr<stbi_us, void (*)(void*)> data(
        stbi_load_16_from_memory(bytes.data(), len, &w, &h, &channels, 0), stbi_image_free);
    if (!data) throw Error(path + ": cannot decode (" + decoder_complaint() + ")");
    return to_gray(data.get(), w, h, channels, 65535.0f);
  }
  std::unique_ptr<stbi_uc, void (*)(void*)> data(
      stbi_load_from_memory(bytes.data(), len, &w, &h, &channels, 0), stbi_image_free);
  if (!data) throw Error(path + ": cannot decode (" + decoder_complaint() + ")");
  return to_gray(data.get(), w, h, channels, 255.0f);
}

Image load_image_spec(const std::string& spec) {
  const std::string prefix = "synthetic:";
  if (spec.rfind(prefix, 0) != 0) return load_image(spec);
  std::string rest = spec.substr(prefix.size());
  std::uint32_t seed = 1;
  auto colon = rest.find(':');
  if (colon != std::string::npos) {
    seed = static_cast<std::uint32_t>(
        parse_positive_int(rest.substr(colon + 1), "--image synthetic seed", 1 << 30));
    rest = rest.substr(0, colon);
  }
  auto [w, h] = parse_size(rest, "--image synthetic", kMaxImageSide);
  if (static_cast<std::int64_t>(w) * h > kMaxImagePixels)
    throw UsageError("--image synthetic: " + rest + " is over the limit of " +
                     std::to_string(kMaxImagePixels) + " pixels");
  return synthetic_image(w, h, seed);
}

Image synthetic_image(int width, int height, std::uint32_t seed) {
  Image img(width, height);
  std::uint32_t state = seed * 2654435761u + 12345u;
  auto next = [&]() {  // xorshift32: tiny, deterministic, good enough for noise
    state ^= state << 13;
    state ^= state >> 17;
    state ^= state << 5;
    return state;
  };
  // A few discs at seed-dependent places.
  struct Disc {
    float cx, cy, r, v;
  };
  Disc discs[4];
  for (auto& d : discs) {
    d.cx = (next() % 1000) / 1000.0f;
    d.cy = (next() % 1000) / 1000.0f;
    d.r = 0.05f + (next() % 200) / 1000.0f;
    d.v = (next() % 1000) / 1000.0f;
  }
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x) {
      float u = (x + 0.5f) / width, v = (y + 0.5f) / height;
      float value = 0.35f * u + 0.25f * v;                       // gradients
      value += 0.15f * std::sin(18.0f * u) * std::cos(11.0f * v);  // smooth waves
      if ((x / 32 + y / 32) % 2 == 0) value += 0.1f;               // hard edges
      for (const auto& d : discs)
        if ((u - d.cx) * (u - d.cx) + (v - d.cy) * (v - d.cy) < d.r * d.r)
          value = 0.5f * value + 0.5f * d.v;
      value += 0.1f * ((next() >> 8) / 16777216.0f - 0.5f);  // noise
      img.at(x, y) = std::min(1.0f, std::max(0.0f, value));
    }
  return img;
}

void write_file_atomically(const std::string& path, const std::vector<std::uint8_t>& bytes) {
  std::string tmp = path + ".tmp." + std::to_string(::getpid());
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) throw Error(path + ": cannot write: " + std::strerror(errno));
    out.write(reinterpret_cast<const char*>(bytes.data()),
              static_cast<std::streamsize>(bytes.size()));
    out.flush();
    if (!out) {
      std::remove(tmp.c_str());
      throw Error(path + ": write failed: " + std::strerror(errno));
    }
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    int err = errno;
    std::remove(tmp.c_str());
    throw Error(path + ": cannot write: " + std::strerror(err));
  }
}

void check_output_path(const std::string& path) {
  std::string ext = lower_extension(path);
  if (ext != ".png" && ext != ".pfm")
    throw UsageError("--output: '" + path + "' must end in .png or .pfm");
  check_writable(path);
}

void check_writable(const std::string& path) {
  std::error_code ec;
  if (fs::is_directory(path, ec)) throw Error(path + ": is a directory");
  fs::path parent = fs::path(path).parent_path();
  if (!parent.empty() && !fs::is_directory(parent, ec))
    throw Error(path + ": folder " + parent.string() + " does not exist");
  const std::string probe = path + ".tmp." + std::to_string(::getpid());
  const int fd = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) throw Error(path + ": cannot write: " + std::strerror(errno));
  ::close(fd);
  ::unlink(probe.c_str());
}

void save_image(const std::string& path, const Image& image) {
  check_output_path(path);
  if (lower_extension(path) == ".pfm") {
    write_file_atomically(path, encode_pfm(image));
    return;
  }
  std::vector<std::uint8_t> gray(image.pixels.size());
  for (std::size_t i = 0; i < gray.size(); ++i) {
    float v = image.pixels[i];
    v = std::isnan(v) ? 0.0f : std::min(1.0f, std::max(0.0f, v));
    gray[i] = static_cast<std::uint8_t>(std::lround(v * 255.0f));
  }
  std::vector<std::uint8_t> png;
  auto sink = [](void* ctx, void* data, int size) {
    auto* out = static_cast<std::vector<std::uint8_t>*>(ctx);
    auto* p = static_cast<std::uint8_t*>(data);
    out->insert(out->end(), p, p + size);
  };
  if (!stbi_write_png_to_func(sink, &png, image.width, image.height, 1, gray.data(), image.width))
    throw Error(path + ": PNG encoding failed");
  write_file_atomically(path, png);
}

}  // namespace conv
