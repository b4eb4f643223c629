// The image readers against files written here byte by byte, independently
// of any encoder the project uses: PGM/PPM at every class of maximum value,
// PFM in both byte orders, BMP and TGA stored bottom-up and top-down, and
// every header spelling the formats allow (spaces, tabs, CR LF between
// numbers, comments). Each must read back exactly; every malformed variant
// (the issue list in docs/reliability.md) must be refused naming the file.
#include "tests/catch.hpp"

#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "common/core/errors.hpp"
#include "common/machinery/netpbm.hpp"
#include "tests/files.hpp"
#include "tests/image_encoders.hpp"
#include "tests/support.hpp"

using namespace conv;
using conv::test::put16;
using conv::test::put32;
using Bytes = std::vector<std::uint8_t>;

namespace {

Bytes text(const std::string& s) { return Bytes(s.begin(), s.end()); }

Bytes cat(Bytes a, const Bytes& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

Image load_bytes(const std::string& name, const Bytes& bytes) {
  return load_image(conv::test::write_scratch(name, bytes));
}

// Samples as a PGM/PPM raster stores them: one byte, or two big-endian.
Bytes pnm_raster(const std::vector<int>& samples, int maxval) {
  Bytes out;
  for (int v : samples) {
    if (maxval > 255) out.push_back(static_cast<std::uint8_t>(v >> 8));
    out.push_back(static_cast<std::uint8_t>(v & 0xFF));
  }
  return out;
}

void put_float(Bytes& out, float v, bool little) {
  std::uint32_t u;
  std::memcpy(&u, &v, 4);
  for (int k = 0; k < 4; ++k) out.push_back(static_cast<std::uint8_t>(u >> (little ? 8 * k : 24 - 8 * k)));
}

// 24-bit BMP, rows bottom-up (the usual) or top-down (negative height).
Bytes bmp24(int w, int h, const std::vector<std::uint8_t>& gray, bool top_down) {
  const int row = (w * 3 + 3) / 4 * 4;
  Bytes b = {'B', 'M'};
  put32(b, 54 + row * h);
  put32(b, 0);
  put32(b, 54);
  put32(b, 40);
  put32(b, static_cast<std::uint32_t>(w));
  put32(b, static_cast<std::uint32_t>(top_down ? -h : h));
  put16(b, 1);
  put16(b, 24);
  for (int i = 0; i < 6; ++i) put32(b, 0);
  for (int r = 0; r < h; ++r) {
    const int y = top_down ? r : h - 1 - r;
    for (int x = 0; x < w; ++x)
      for (int k = 0; k < 3; ++k) b.push_back(gray[y * w + x]);
    for (int p = w * 3; p < row; ++p) b.push_back(0);
  }
  return b;
}

// Uncompressed 8-bit gray TGA, origin bottom-left (the default) or top-left.
Bytes tga8(int w, int h, const std::vector<std::uint8_t>& gray, bool top_down) {
  Bytes b = {0, 0, 3, 0, 0, 0, 0, 0, 0, 0, 0, 0};
  put16(b, w);
  put16(b, h);
  b.push_back(8);
  b.push_back(top_down ? 0x20 : 0x00);
  for (int r = 0; r < h; ++r) {
    const int y = top_down ? r : h - 1 - r;
    for (int x = 0; x < w; ++x) b.push_back(gray[y * w + x]);
  }
  return b;
}

}  // namespace

TEST_CASE("PGM and PPM read every maximum value exactly, as sample / maxval", "[inputs][pnm]") {
  std::mt19937 rng(conv::test::run_seed());
  INFO(conv::test::seed_note());
  const int w = 5, h = 3;
  for (int maxval : {1, 2, 3, 15, 100, 254, 255, 256, 257, 1000, 4095, 32767, 65534, 65535}) {
    std::vector<int> gray(w * h), rgb(w * h * 3);
    for (auto& v : gray) v = static_cast<int>(rng() % (maxval + 1));
    for (auto& v : rgb) v = static_cast<int>(rng() % (maxval + 1));
    gray[0] = 0;
    gray[1] = maxval;
    const std::string m = std::to_string(maxval);
    // Every separator the format allows between the numbers; one byte after the last.
    for (const std::string& header : {"P5\n5 3\n" + m + "\n", "P5 5 3 " + m + " ", "P5\r\n5\t3\r\n" + m + "\n",
                                      "P5\n# a comment\n5 3 # another\n" + m + "\r",
                                      "P5\n5\n3\n" + m + "\t"}) {
      INFO("maxval " << maxval << ", header " << ::Catch::Detail::stringify(header));
      const Image img = load_bytes("g.pgm", cat(text(header), pnm_raster(gray, maxval)));
      REQUIRE(img.width == w);
      REQUIRE(img.height == h);
      for (int i = 0; i < w * h; ++i)
        CHECK(img.pixels[i] == static_cast<float>(static_cast<double>(gray[i]) / maxval));
    }
    const Image c = load_bytes("c.ppm", cat(text("P6\n5 3\n" + m + "\n"), pnm_raster(rgb, maxval)));
    for (int i = 0; i < w * h; ++i) {
      const float r = static_cast<float>(rgb[3 * i]) / maxval, g = static_cast<float>(rgb[3 * i + 1]) / maxval,
                  b = static_cast<float>(rgb[3 * i + 2]) / maxval;
      CHECK(c.pixels[i] == Approx(0.299 * r + 0.587 * g + 0.114 * b).margin(1e-6));
    }
  }
  // The cases that used to go wrong: 16-bit samples are big-endian.
  const Image deep = load_bytes("deep.pgm", cat(text("P5\n4 1\n65535\n"), pnm_raster({0, 256, 32768, 65535}, 65535)));
  CHECK(deep.pixels == std::vector<float>{0.0f, 256 / 65535.0f, 32768 / 65535.0f, 1.0f});
  const Image bit = load_bytes("bit.pgm", cat(text("P5\n2 1\n1\n"), Bytes{0, 1}));
  CHECK(bit.pixels == std::vector<float>{0.0f, 1.0f});
}

TEST_CASE("PGM and PPM headers and rasters that are not exact are refused", "[inputs][pnm]") {
  const Bytes px = {1, 2, 3, 4};
  const std::vector<std::pair<std::string, Bytes>> bad = {
      {"maximum value", cat(text("P5\n2 2\n0\n"), px)},
      {"maximum value", cat(text("P5\n2 2\n65536\n"), px)},
      {"not a whole decimal number", cat(text("P5\n2abc 2\n255\n"), px)},
      {"not a whole decimal number", cat(text("P5\n2.0 2\n255\n"), px)},
      {"not a whole decimal number", cat(text("P5\n+2 2\n255\n"), px)},
      {"CR LF", cat(text("P5\r\n2 2\r\n255\r\n"), px)},
      {"more whitespace", cat(text("P5\n2 2\n255\n\n"), px)},
      {"after the PGM pixel data", cat(text("P5\n2 2\n255\n"), cat(px, {9, 9, 9}))},
      {"truncated PGM", cat(text("P5\n2 2\n255\n"), {1, 2, 3})},
      {"truncated PGM", cat(text("P5\n2 2\n65535\n"), px)},
      {"over the maximum value", cat(text("P5\n2 2\n3\n"), px)},
      {"no whitespace before the width", cat(text("P52 2\n255\n"), px)},
      {"one whitespace byte", cat(text("P5\n2 2\n255#c\n"), px)},
      {"plain (ASCII)", text("P2\n2 2\n255\n1 2 3 4\n")},
      {"PBM", text("P4\n8 1\n\x01")},
      {"PAM", text("P7\nWIDTH 1\n")},
      {"no pixels", cat(text("P5\n0 2\n255\n"), px)},
      {"over the limit", cat(text("P5\n70000 1\n255\n"), px)},
  };
  for (const auto& [needle, bytes] : bad) {
    INFO(needle << ": " << ::Catch::Detail::stringify(std::string(bytes.begin(), bytes.end())));
    CHECK_THROWS_WITH(load_bytes("bad.pgm", bytes), ContainsText("bad.pgm") && ContainsText(needle));
  }
}

TEST_CASE("PFM reads both byte orders and both channel counts exactly, bottom row first",
          "[inputs][pfm]") {
  std::mt19937 rng(conv::test::run_seed());
  INFO(conv::test::seed_note());
  std::uniform_real_distribution<float> dist(-1e6f, 1e6f);
  const int w = 3, h = 2;
  std::vector<float> v(w * h * 3);
  for (auto& x : v) x = dist(rng);
  for (bool little : {true, false})
    for (int channels : {1, 3})
      for (const std::string& sep : {std::string("\n"), std::string(" "), std::string("\r\n")}) {
        INFO((little ? "little" : "big") << "-endian, " << channels << " channel(s), separator "
                                         << ::Catch::Detail::stringify(sep));
        Bytes b = text(std::string(channels == 1 ? "Pf" : "PF") + sep + "3 2" + sep +
                       (little ? "-1.0" : "1.0") + "\n");
        for (int r = h - 1; r >= 0; --r)  // stored bottom row first
          for (int i = 0; i < w * channels; ++i) put_float(b, v[(r * w) * channels + i], little);
        const Image img = load_bytes("f.pfm", b);
        for (int y = 0; y < h; ++y)
          for (int x = 0; x < w; ++x) {
            const float* p = &v[(y * w + x) * channels];
            const float expected = channels == 1 ? p[0] : 0.299f * p[0] + 0.587f * p[1] + 0.114f * p[2];
            CHECK(img.at(x, y) == expected);
          }
      }
}

TEST_CASE("PFM headers and rasters that are not exact are refused", "[inputs][pfm]") {
  Bytes raster;
  for (float f : {1.0f, 2.0f}) put_float(raster, f, true);
  const std::vector<std::pair<std::string, Bytes>> bad = {
      {"CR LF", cat(text("Pf\r\n2 1\r\n-1.0\r\n"), raster)},
      {"more whitespace", cat(text("Pf\n2 1\n-1.0\n\n"), raster)},
      {"after the PFM pixel data", cat(text("Pf\n2 1\n-1.0\n"), cat(raster, {0, 0, 0, 0}))},
      {"not a whole decimal number", cat(text("Pf\n2abc 1\n-1.0\n"), raster)},
      {"not a whole decimal number", cat(text("Pf\n2.9 1\n-1.0\n"), raster)},
      {"not a decimal number", cat(text("Pf\n2 1\n-1.0abc\n"), raster)},
      {"not a decimal number", cat(text("Pf\n2 1\n0x1p0\n"), raster)},
      {"not a decimal number", cat(text("Pf\n2 1\nnan\n"), raster)},
      {"non-zero", cat(text("Pf\n2 1\n0.0\n"), raster)},
      {"truncated PFM", cat(text("Pf\n2 1\n-1.0\n"), Bytes(raster.begin(), raster.end() - 1))},
      {"no whitespace before the width", cat(text("Pf2 1\n-1.0\n"), raster)},
      {"ends before the pixel data", text("Pf\n2 1\n-1.0")},
  };
  for (const auto& [needle, bytes] : bad) {
    INFO(needle << ": " << ::Catch::Detail::stringify(std::string(bytes.begin(), bytes.end())));
    CHECK_THROWS_WITH(load_bytes("bad.pfm", bytes), ContainsText("bad.pfm") && ContainsText(needle));
  }
}

TEST_CASE("BMP and TGA read the same image whichever way their rows are stored", "[inputs]") {
  std::mt19937 rng(conv::test::run_seed());
  INFO(conv::test::seed_note());
  const int w = 7, h = 5;
  std::vector<std::uint8_t> gray(w * h);
  for (auto& v : gray) v = static_cast<std::uint8_t>(rng() % 256);
  for (bool top_down : {false, true}) {
    INFO((top_down ? "top-down" : "bottom-up"));
    for (const auto& [name, bytes] : {std::pair<std::string, Bytes>{"o.bmp", bmp24(w, h, gray, top_down)},
                                      {"o.tga", tga8(w, h, gray, top_down)}}) {
      INFO(name);
      const Image img = load_bytes(name, bytes);
      REQUIRE(img.width == w);
      REQUIRE(img.height == h);
      for (int i = 0; i < w * h; ++i) CHECK(img.pixels[i] == gray[i] / 255.0f);
    }
  }
}

TEST_CASE("formats the documentation does not list are refused by name", "[inputs]") {
  Bytes psd = text("8BPS");
  psd.resize(40, 0);
  psd[13] = 1;  // 1 channel, 8192 x 8192: a 40-byte file claiming 256 MiB
  psd[14] = psd[18] = 0x20;
  CHECK_THROWS_WITH(load_bytes("x.psd", psd), ContainsText("x.psd") && ContainsText("PSD is not a supported format"));
  Bytes gif = text("GIF89a");
  gif.resize(30, 0);
  gif.back() = ';';
  CHECK_THROWS_WITH(load_bytes("x.gif", gif), ContainsText("GIF is not a supported format"));
  CHECK_THROWS_WITH(load_bytes("x.hdr", text("#?RADIANCE\n")), ContainsText("not a supported format"));
  CHECK_THROWS_WITH(load_bytes("x.bin", Bytes(64, 0xEE)), ContainsText("x.bin") && ContainsText("supported format"));
}
