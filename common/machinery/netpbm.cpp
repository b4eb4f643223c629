#include "common/machinery/netpbm.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <cstring>

#include "common/core/errors.hpp"

namespace conv {
namespace {

bool is_space(std::uint8_t c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

// Walks a Netpbm header token by token; every complaint names the file.
class Header {
 public:
  Header(const std::vector<std::uint8_t>& b, std::string name, std::string format, bool comments)
      : b_(b), name_(std::move(name)), format_(std::move(format)), comments_(comments) {}

  [[noreturn]] void fail(const std::string& why) const {
    throw Error(name_ + ": malformed " + format_ + " header (" + why + ")");
  }

  // Whitespace (and, in PGM/PPM, '#' comments to the end of the line), at
  // least one byte of it: tokens must be separated.
  void separator(const char* before) {
    const std::size_t start = pos_;
    while (pos_ < b_.size() && (is_space(b_[pos_]) || (comments_ && b_[pos_] == '#'))) {
      if (b_[pos_] == '#')
        while (pos_ < b_.size() && b_[pos_] != '\n' && b_[pos_] != '\r') ++pos_;
      else
        ++pos_;
    }
    if (pos_ == start) fail(std::string("no whitespace before the ") + before);
  }

  // The bytes up to the next whitespace (or comment).
  std::string token(const char* what) {
    const std::size_t start = pos_;
    while (pos_ < b_.size() && !is_space(b_[pos_]) && !(comments_ && b_[pos_] == '#')) ++pos_;
    if (pos_ == start) fail(std::string("the ") + what + " is missing");
    std::string t(b_.begin() + start, b_.begin() + pos_);
    for (char& c : t)
      if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) > 0x7E) c = '?';
    return t.size() > 24 ? t.substr(0, 24) + "..." : t;
  }

  // A whole decimal integer: digits only ("16abc", "16.9", "+16" are refused).
  long long integer(const char* what) {
    const std::size_t start = pos_;
    const std::string t = token(what);
    const std::size_t length = pos_ - start;
    bool digits = length <= 12;
    for (std::size_t i = start; i < pos_ && digits; ++i) digits = b_[i] >= '0' && b_[i] <= '9';
    if (!digits) fail(std::string("the ") + what + " '" + t + "' is not a whole decimal number");
    return std::stoll(t);
  }

  // A decimal number as C writes one: [+-]digits[.digits][e[+-]digits].
  double decimal(const char* what) {
    const std::string t = token(what);
    std::size_t i = 0, digits = 0;
    if (i < t.size() && (t[i] == '+' || t[i] == '-')) ++i;
    while (i < t.size() && std::isdigit(static_cast<unsigned char>(t[i]))) ++i, ++digits;
    if (i < t.size() && t[i] == '.')
      for (++i; i < t.size() && std::isdigit(static_cast<unsigned char>(t[i])); ++i) ++digits;
    bool ok = digits > 0;
    if (ok && i < t.size() && (t[i] == 'e' || t[i] == 'E')) {
      ++i;
      if (i < t.size() && (t[i] == '+' || t[i] == '-')) ++i;
      ok = i < t.size();
      while (i < t.size() && std::isdigit(static_cast<unsigned char>(t[i]))) ++i;
    }
    if (!ok || i != t.size()) fail(std::string("the ") + what + " '" + t + "' is not a decimal number");
    const double v = std::strtod(t.c_str(), nullptr);
    if (!std::isfinite(v)) fail(std::string("the ") + what + " '" + t + "' is not finite");
    return v;
  }

  // Exactly one whitespace byte after the last number; returns where the
  // raster starts.
  std::size_t end_of_header() {
    if (pos_ >= b_.size()) fail("it ends before the pixel data");
    if (!is_space(b_[pos_])) fail("the last number must be followed by one whitespace byte");
    last_ = b_[pos_];
    return ++pos_;
  }

  // The raster is exactly `need` bytes from `start` to the end of the file.
  void check_raster_size(std::size_t start, std::size_t need) const {
    const std::size_t have = b_.size() - start;
    if (have < need)
      throw Error(name_ + ": truncated " + format_ + " (" + std::to_string(have) + " of " +
                  std::to_string(need) + " bytes of pixel data)");
    if (have == need) return;
    const std::size_t extra = have - need;
    if (last_ == '\r' && b_[start] == '\n' && extra == 1)
      throw Error(name_ + ": " + format_ + " header ends in CR LF: the format allows one " +
                  "whitespace byte there, so the pixel data would start one byte late");
    if (is_space(b_[start]) && extra <= 4 && std::all_of(b_.begin() + start, b_.begin() + start + extra, is_space))
      throw Error(name_ + ": " + std::to_string(extra) + " more whitespace byte(s) after the " +
                  format_ + " header than the format allows: the pixel data would be shifted");
    throw Error(name_ + ": " + std::to_string(extra) + " byte(s) after the " + format_ +
                " pixel data (one image per file, nothing after it)");
  }

  std::size_t pos_ = 2;  // after the two magic bytes

 private:
  const std::vector<std::uint8_t>& b_;
  std::string name_, format_;
  bool comments_;
  std::uint8_t last_ = 0;
};

void check_size(const std::string& name, long long w, long long h) {
  if (w <= 0 || h <= 0)
    throw Error(name + ": image has no pixels (" + std::to_string(w) + "x" + std::to_string(h) + ")");
  if (w > kMaxImageSide || h > kMaxImageSide || w * h > kMaxImagePixels)
    throw Error(name + ": image size " + std::to_string(w) + "x" + std::to_string(h) +
                " is over the limit (" + std::to_string(kMaxImageSide) + " a side, " +
                std::to_string(kMaxImagePixels) + " pixels)");
}

}  // namespace

float luma(float r, float g, float b) { return 0.299f * r + 0.587f * g + 0.114f * b; }

bool looks_like_pnm(const std::vector<std::uint8_t>& b) {
  return b.size() >= 2 && b[0] == 'P' && b[1] >= '1' && b[1] <= '7';
}

bool looks_like_pfm(const std::vector<std::uint8_t>& b) {
  return b.size() >= 2 && b[0] == 'P' && (b[1] == 'f' || b[1] == 'F');
}

PnmRaster decode_pnm(const std::vector<std::uint8_t>& b, const std::string& name) {
  if (!looks_like_pnm(b)) throw Error(name + ": not a PGM or PPM file");
  const char kind = static_cast<char>(b[1]);
  if (kind != '5' && kind != '6') {
    const char* what = kind == '1' || kind == '4' ? "PBM (bitmap)"
                       : kind == '7'              ? "PAM"
                                                  : "plain (ASCII) PGM/PPM";
    throw Error(name + ": P" + std::string(1, kind) + " is " + what +
                ", not supported: only binary PGM (P5) and PPM (P6) are read");
  }
  const std::string format = kind == '5' ? "PGM" : "PPM";
  Header h(b, name, format, true);
  PnmRaster r;
  r.channels = kind == '5' ? 1 : 3;
  h.separator("width");
  const long long w = h.integer("width");
  h.separator("height");
  const long long ht = h.integer("height");
  h.separator("maximum value");
  const long long maxval = h.integer("maximum value");
  const std::size_t start = h.end_of_header();
  check_size(name, w, ht);
  if (maxval < 1 || maxval > 65535)
    throw Error(name + ": " + format + " maximum value " + std::to_string(maxval) + " is not in 1..65535");
  r.width = static_cast<int>(w);
  r.height = static_cast<int>(ht);
  r.maxval = static_cast<int>(maxval);
  const std::size_t count = static_cast<std::size_t>(w) * ht * r.channels;
  const std::size_t bytes_per_sample = maxval > 255 ? 2 : 1;  // 16-bit samples are big-endian
  h.check_raster_size(start, count * bytes_per_sample);
  r.samples.resize(count);
  const std::uint8_t* p = b.data() + start;
  for (std::size_t i = 0; i < count; ++i) {
    const std::uint16_t v = bytes_per_sample == 2 ? static_cast<std::uint16_t>(p[2 * i] << 8 | p[2 * i + 1]) : p[i];
    if (v > maxval) {
      const std::size_t pixel = i / r.channels;
      throw Error(name + ": " + format + " sample " + std::to_string(v) + " at (" +
                  std::to_string(pixel % r.width) + ", " + std::to_string(pixel / r.width) +
                  ") is over the maximum value " + std::to_string(maxval));
    }
    r.samples[i] = v;
  }
  return r;
}

Image pnm_to_gray(const PnmRaster& r) {
  Image img(r.width, r.height);
  const float max = static_cast<float>(r.maxval);
  for (std::size_t i = 0; i < img.pixels.size(); ++i) {
    const std::uint16_t* p = r.samples.data() + i * r.channels;
    if (r.channels == 1 || (p[0] == p[1] && p[1] == p[2]))
      img.pixels[i] = p[0] / max;  // one correctly rounded division: exact for every maxval
    else
      img.pixels[i] = luma(p[0] / max, p[1] / max, p[2] / max);
  }
  return img;
}

Image decode_pfm(const std::vector<std::uint8_t>& bytes, const std::string& name) {
  if (!looks_like_pfm(bytes)) throw Error(name + ": not a PFM file (bad magic)");
  const int channels = bytes[1] == 'F' ? 3 : 1;
  Header h(bytes, name, "PFM", false);
  h.separator("width");
  const long long w = h.integer("width");
  h.separator("height");
  const long long ht = h.integer("height");
  h.separator("scale");
  const double scale = h.decimal("scale");
  const std::size_t pos = h.end_of_header();
  if (scale == 0) throw Error(name + ": PFM scale must be non-zero");
  check_size(name, w, ht);
  const std::size_t count = static_cast<std::size_t>(w) * ht * channels;
  h.check_raster_size(pos, count * 4);
  const bool little = scale < 0;
  Image img(static_cast<int>(w), static_cast<int>(ht));
  std::vector<float> row(static_cast<std::size_t>(w) * channels);
  for (long long r = 0; r < ht; ++r) {
    const std::uint8_t* src = bytes.data() + pos + static_cast<std::size_t>(r) * w * channels * 4;
    for (std::size_t i = 0; i < row.size(); ++i) {
      const std::uint8_t* b = src + i * 4;
      const std::uint32_t u = little ? (b[0] | b[1] << 8 | b[2] << 16 | std::uint32_t(b[3]) << 24)
                                     : (b[3] | b[2] << 8 | b[1] << 16 | std::uint32_t(b[0]) << 24);
      std::memcpy(&row[i], &u, 4);
      if (!std::isfinite(row[i]))
        throw Error(name + ": PFM holds a NaN or infinite value at row " + std::to_string(r));
    }
    const long long y = ht - 1 - r;  // PFM stores the bottom row first
    for (long long x = 0; x < w; ++x)
      img.at(static_cast<int>(x), static_cast<int>(y)) =
          channels == 1 ? row[x] : luma(row[3 * x], row[3 * x + 1], row[3 * x + 2]);
  }
  return img;
}

}  // namespace conv
