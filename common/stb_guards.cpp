#include "common/stb_guards.hpp"

#include <algorithm>
#include <cstring>
#include <limits>

#define STBI_NO_STDIO  // as in common/stb_impl.cpp: decoded from memory only
#include <stb/stb_image.h>

#include "common/errors.hpp"
#include "common/image.hpp"

namespace conv {

namespace {

constexpr const char* kSupportedFormats = "PNG, JPEG, BMP, TGA, PGM, PPM or PFM";

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

}  // namespace

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

}  // namespace conv
