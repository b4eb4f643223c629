#include "common/machinery/stb_guards.hpp"

#include <algorithm>
#include <cstring>
#include <limits>

#define STBI_NO_STDIO  // as in common/machinery/stb_impl.cpp: decoded from memory only
#include <stb_image.h>

#include "common/core/errors.hpp"
#include "common/machinery/image_files.hpp"

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
// decoders are compiled out, common/machinery/stb_impl.cpp): named, so the refusal
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

// Whether a JPEG's markers, walked as check_jpeg_huffman walks them
// (segments skipped by their lengths, so a thumbnail's marker inside one
// does not count), reach an end-of-image marker. What follows it is not
// read: trailing bytes are legal.
bool jpeg_has_end(const std::vector<std::uint8_t>& b) {
  std::size_t pos = jpeg_body(b);
  while (pos + 1 < b.size()) {
    if (b[pos] != 0xFF) {  // entropy-coded data between markers
      ++pos;
      continue;
    }
    const int marker = b[pos + 1];
    if (marker == 0xD9) return true;
    if (marker == 0xFF || marker == 0x00 || marker == 0x01 || (marker >= 0xD0 && marker <= 0xD7)) {
      pos += marker == 0xFF ? 1 : 2;
      continue;
    }
    if (pos + 4 > b.size()) return false;
    pos += 2 + std::max<std::size_t>(static_cast<std::size_t>(b[pos + 2]) << 8 | b[pos + 3], 2);
  }
  return false;
}

// A JPEG's scans and coded data against the size its frame header
// declares: the work stb_image would do, bounded before it does any. It
// allocates the whole frame (for a progressive JPEG, 16-bit coefficients
// besides) whatever the file holds, and decodes missing data as zeros, so a
// few hundred bytes declaring 16384x16384 pixels would cost gigabytes; and
// it passes over every block of the frame once per scan, so a file of many
// scans costs minutes. Every real JPEG codes each 8x8 block of each
// component in at least one bit (a Huffman code is one bit or more), and
// libjpeg writes 10 scans for a progressive color file, 6 for a gray one.
constexpr int kMaxJpegScans = 100;

void check_jpeg_work(const std::string& name, const std::vector<std::uint8_t>& b) {
  std::size_t pos = jpeg_body(b);
  if (pos == 0) return;
  int width = 0, height = 0, scans = 0;
  bool progressive = false;
  std::vector<std::pair<int, int>> sampling;  // each component's (h, v)
  std::uint64_t coded = 0;  // bytes of entropy-coded data after a scan's header
  bool in_scan = false;
  while (pos + 1 < b.size()) {
    if (b[pos] != 0xFF) {  // entropy-coded data between markers
      coded += in_scan ? 1 : 0;
      ++pos;
      continue;
    }
    const int marker = b[pos + 1];
    if (marker == 0xFF) {  // fill byte
      ++pos;
      continue;
    }
    if (marker == 0x00) {  // a stuffed 0xFF: one byte of data
      coded += in_scan ? 1 : 0;
      pos += 2;
      continue;
    }
    if (marker == 0x01 || (marker >= 0xD0 && marker <= 0xD7)) {  // TEM, restart: no length
      pos += 2;
      continue;
    }
    in_scan = false;
    if (marker == 0xD9 || pos + 4 > b.size()) break;  // end of image, or of the file
    const std::size_t length = static_cast<std::size_t>(b[pos + 2]) << 8 | b[pos + 3];
    // SOF0..SOF15 but DHT (C4), JPG (C8) and DAC (CC): the frame header.
    if (marker >= 0xC0 && marker <= 0xCF && marker != 0xC4 && marker != 0xC8 && marker != 0xCC &&
        pos + 10 <= b.size() && width == 0) {
      progressive = marker == 0xC2 || marker == 0xC6 || marker == 0xCA || marker == 0xCE;
      height = b[pos + 5] << 8 | b[pos + 6];
      width = b[pos + 7] << 8 | b[pos + 8];
      const int components = b[pos + 9];
      for (int c = 0; c < components && pos + 12 + 3 * static_cast<std::size_t>(c) < b.size(); ++c) {
        const int hv = b[pos + 11 + 3 * c];
        sampling.push_back({hv >> 4, hv & 15});
      }
    }
    if (marker == 0xDA) {  // start of scan: its data follows the header
      if (++scans > kMaxJpegScans)
        throw Error(name + ": JPEG of more than " + std::to_string(kMaxJpegScans) +
                    " scans (libjpeg writes 10 for a progressive color file): refused unread, as a "
                    "decompression bomb would be");
      in_scan = true;
    }
    pos += 2 + std::max<std::size_t>(length, 2);
  }
  if (width <= 0 || height <= 0 || sampling.empty()) return;  // stb_image refuses these itself
  int h_max = 0, v_max = 0;
  for (const auto& [h, v] : sampling) {
    if (h < 1 || h > 4 || v < 1 || v > 4) return;  // stb_image refuses these itself
    h_max = std::max(h_max, h), v_max = std::max(v_max, v);
  }
  std::uint64_t blocks = 0;  // of the component with the most
  for (const auto& [h, v] : sampling) {
    const std::uint64_t w = (static_cast<std::uint64_t>(width) * h + h_max - 1) / h_max;
    const std::uint64_t t = (static_cast<std::uint64_t>(height) * v + v_max - 1) / v_max;
    blocks = std::max(blocks, ((w + 7) / 8) * ((t + 7) / 8));
  }
  if (coded * 8 < blocks)
    throw Error(name + ": " + (progressive ? "progressive " : "") + "JPEG of " + std::to_string(width) + "x" +
                std::to_string(height) + " pixels holds " + std::to_string(coded) +
                " bytes of coded data, less than one bit per 8x8 block (" + std::to_string((blocks + 7) / 8) +
                " bytes): refused unread, as a decompression bomb would be");
}

// A BMP's pixel data against its header, for every header stb_image
// decodes (the 12-byte OS/2 BITMAPCOREHEADER; the 40-, 56-, 108- and
// 124-byte Windows ones; 1-, 4- and 8-bit palettes; 16-, 24- and 32-bit
// pixels, BI_RGB or BI_BITFIELDS): stb_image reads missing rows as zeros,
// and past a palette it reads whatever its stack held. Each row is
// ceil(W x bits / 32) words; the last row's padding may be missing.
void check_bmp(const std::string& name, const std::vector<std::uint8_t>& b, int w, int h) {
  auto u16 = [&](std::size_t i) { return static_cast<std::uint32_t>(b[i] | (b[i + 1] << 8)); };
  auto u32 = [&](std::size_t i) {
    return static_cast<std::uint32_t>(b[i] | (b[i + 1] << 8) | (b[i + 2] << 16)) |
           (static_cast<std::uint32_t>(b[i + 3]) << 24);
  };
  if (b.size() < 26) throw Error(name + ": truncated BMP (the header ends early)");
  const std::uint32_t offset = u32(10), header = u32(14);
  const bool core = header == 12;  // OS/2 BITMAPCOREHEADER: 16-bit sizes, no compression field
  if (b.size() < 14 + std::min<std::size_t>(header, 40) || (!core && b.size() < 54))
    throw Error(name + ": truncated BMP (the header ends early)");
  const std::uint32_t bpp = core ? u16(24) : u16(28);
  const std::uint32_t compression = core ? 0 : u32(30);
  if (compression != 0 && compression != 3) return;  // stb_image refuses RLE and the rest itself
  // Where the palette starts: after the header and, for a 40- or 56-byte
  // header with BI_BITFIELDS, its three masks.
  const std::uint64_t palette_at = 14 + static_cast<std::uint64_t>(header) +
                                   (compression == 3 && (header == 40 || header == 56) ? 12 : 0);
  if (bpp < 16) {
    if (core)  // stb_image 2.27 sizes this header's palette wrongly and reads entries it never filled
      throw Error(name + ": a BMP with the 12-byte OS/2 header and a palette is not supported "
                         "(save it with a Windows BMP header, or as PNG)");
    // The palette: (offset - its start) / 4 entries, each index must name one.
    if (offset < palette_at + 4)  // stb_image would read no palette, then index its unfilled table
      throw Error(name + ": corrupt BMP (a " + std::to_string(bpp) + "-bit image whose pixel data starts at byte " +
                  std::to_string(offset) + ", before any palette)");
    const std::uint64_t entries = (offset - palette_at) / 4;
    if (entries > 256 || (bpp != 1 && bpp != 4 && bpp != 8)) return;  // stb_image refuses these itself
    const std::uint64_t row = (static_cast<std::uint64_t>(w) * bpp + 31) / 32 * 4;
    const std::uint64_t last = (static_cast<std::uint64_t>(w) * bpp + 7) / 8;
    if (offset + row * (static_cast<std::uint64_t>(h) - 1) + last > b.size())
      throw Error(name + ": truncated BMP (" + std::to_string(bpp) + "-bit pixel data ends early)");
    for (std::uint64_t y = 0; y < static_cast<std::uint64_t>(h); ++y)
      for (std::uint64_t x = 0; x < static_cast<std::uint64_t>(w); ++x) {
        const std::uint8_t byte = b[offset + y * row + x * bpp / 8];
        const std::uint32_t index = bpp == 8 ? byte : bpp == 4 ? (x % 2 ? byte & 15 : byte >> 4)
                                                               : (byte >> (7 - x % 8)) & 1;
        if (index >= entries)
          throw Error(name + ": corrupt BMP (pixel (" + std::to_string(x) + ", " + std::to_string(y) +
                      ") names palette entry " + std::to_string(index) + " of " + std::to_string(entries) + ")");
      }
    return;
  }
  if (bpp != 16 && bpp != 24 && bpp != 32) return;  // stb_image refuses the rest itself
  const std::uint64_t row = (static_cast<std::uint64_t>(w) * bpp + 31) / 32 * 4;
  const std::uint64_t last = static_cast<std::uint64_t>(w) * bpp / 8;
  if (static_cast<std::uint64_t>(offset) + row * (static_cast<std::uint64_t>(h) - 1) + last > b.size())
    throw Error(name + ": truncated BMP (" + std::to_string(bpp) + "-bit pixel data ends early)");
}

// Why stb_image refused a BMP whose pixels are compressed (it reads only
// BI_RGB and BI_BITFIELDS), or "" for any other file.
std::string compressed_bmp(const std::vector<std::uint8_t>& b) {
  if (b.size() < 34 || b[0] != 'B' || b[1] != 'M') return "";
  const auto u32 = [&](std::size_t i) {
    return static_cast<std::uint32_t>(b[i] | (b[i + 1] << 8) | (b[i + 2] << 16)) |
           (static_cast<std::uint32_t>(b[i + 3]) << 24);
  };
  if (u32(14) < 40) return "";  // the 12-byte OS/2 header has no compression field
  const std::uint32_t compression = u32(30);
  if (compression == 0 || compression == 3) return "";
  const char* kind = compression == 1   ? "BI_RLE8"
                     : compression == 2 ? "BI_RLE4"
                     : compression == 4 ? "BI_JPEG"
                     : compression == 5 ? "BI_PNG"
                                        : nullptr;
  return std::string("compressed BMP (") + (kind ? kind : "compression " + std::to_string(compression)) +
         ") is not read; save it uncompressed, or as PNG";
}

// stb_image decodes some truncated files without complaint (it pads missing
// bytes with zeros), so the formats where that happens are checked here.
void check_not_truncated(const std::string& name, const std::vector<std::uint8_t>& b, int w,
                         int h) {
  if (jpeg_body(b) > 0 && !jpeg_has_end(b))  // bytes after the end-of-image marker are legal
    throw Error(name + ": truncated JPEG (no end-of-image marker)");
  if (b.size() >= 2 && b[0] == 'B' && b[1] == 'M') check_bmp(name, b, w, h);
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
                             &info.channels)) {
    if (const std::string why = compressed_bmp(bytes); !why.empty()) throw Error(name + ": " + why);
    throw Error(name + ": not an image in a supported format (" + std::string(kSupportedFormats) +
                ")");
  }
  std::int64_t height = info.height;  // stb_image reports a top-down BMP's height as negative
  if (height < 0 && bytes[0] == 'B' && bytes[1] == 'M') height = -height;
  check_dimensions(name, info.width, height);
  info.height = static_cast<int>(height);
  check_not_truncated(name, bytes, info.width, info.height);
  check_jpeg_work(name, bytes);
  return info;
}

}  // namespace conv
