// Inputs read exactly or refused (docs/reliability.md): BMPs of every header
// and pixel kind stb_image decodes, complete (read back exactly) and cut
// short (refused: stb_image would fill the missing rows with zeros); a JPEG
// with bytes after its end-of-image marker (legal: read); one rule for
// every 16-bit source in the histogram; error lines that stay one line
// whatever a file name holds; a filter value too small for a float.
#include "tests/catch.hpp"

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "common/core/errors.hpp"
#include "common/machinery/image_files.hpp"
#include "tests/files.hpp"
#include "tests/image_encoders.hpp"
#include "tests/reliability/refusal_checks.hpp"
#include "tests/support.hpp"

using namespace conv;
using namespace conv::test;
using Bytes = std::vector<std::uint8_t>;

namespace {

// A BMP of `kind` holding `gray` (W x H, row-major, top row first), written
// byte by byte: "pal1", "pal4", "pal8" (a gray palette, 40-byte header),
// "bf16" (BI_BITFIELDS 5-5-5), "bf32" (BI_BITFIELDS 8-8-8), "core24"
// (the 12-byte OS/2 header), "core8" (the OS/2 header with a palette).
// `data_at` is where the pixel data starts; each row padded to 4 bytes.
struct Bmp {
  Bytes bytes;
  std::size_t data_at = 0, row = 0;
};

int bits_of(const std::string& kind) {
  return kind == "pal1" ? 1 : kind == "pal4" ? 4 : kind == "pal8" || kind == "core8" ? 8
         : kind == "bf16" ? 16 : kind == "core24" ? 24 : 32;
}

Bmp make_bmp(const std::string& kind, int w, int h, const std::vector<int>& values) {
  const int bits = bits_of(kind);
  const bool core = kind.rfind("core", 0) == 0, bitfields = kind.rfind("bf", 0) == 0;
  const int entries = bits <= 8 ? 1 << bits : 0;
  const std::size_t header = core ? 12 : 40;
  const std::size_t data_at = 14 + header + (bitfields ? 12 : 0) + entries * (core ? 3 : 4);
  const std::size_t row = (static_cast<std::size_t>(w) * bits + 31) / 32 * 4;
  Bytes b = {'B', 'M'};
  put32(b, static_cast<std::uint32_t>(data_at + row * h));
  put32(b, 0);
  put32(b, static_cast<std::uint32_t>(data_at));
  put32(b, static_cast<std::uint32_t>(header));
  if (core) {
    put16(b, w);
    put16(b, h);
  } else {
    put32(b, w);
    put32(b, h);
  }
  put16(b, 1);
  put16(b, bits);
  if (!core) {
    put32(b, bitfields ? 3 : 0);
    for (int i = 0; i < 5; ++i) put32(b, 0);
  }
  if (kind == "bf16") put32(b, 0x7C00), put32(b, 0x03E0), put32(b, 0x001F);
  if (kind == "bf32") put32(b, 0xFF0000), put32(b, 0x00FF00), put32(b, 0x0000FF);
  for (int i = 0; i < entries; ++i) {  // palette entry i: gray i * 255 / (entries - 1)
    const auto g = static_cast<std::uint8_t>(i * 255 / (entries - 1));
    b.insert(b.end(), {g, g, g});
    if (!core) b.push_back(0);
  }
  REQUIRE(b.size() == data_at);
  for (int r = 0; r < h; ++r) {
    const int y = h - 1 - r;  // bottom-up
    Bytes line(row, 0);
    for (int x = 0; x < w; ++x) {
      const int v = values[y * w + x];
      if (bits == 1) line[x / 8] |= static_cast<std::uint8_t>(v << (7 - x % 8));
      if (bits == 4) line[x / 2] |= static_cast<std::uint8_t>(x % 2 ? v : v << 4);
      if (bits == 8) line[x] = static_cast<std::uint8_t>(v);
      if (bits == 16) {
        const std::uint32_t p = v << 10 | v << 5 | v;
        line[2 * x] = p & 0xFF;
        line[2 * x + 1] = p >> 8;
      }
      if (bits >= 24)
        for (int k = 0; k < 3; ++k) line[x * (bits / 8) + k] = static_cast<std::uint8_t>(v);
    }
    b.insert(b.end(), line.begin(), line.end());
  }
  return {b, data_at, row};
}

// The 8-bit gray a value of `kind` stands for.
int gray_of(const std::string& kind, int v) {
  const int bits = bits_of(kind);
  if (bits <= 8 && kind != "core24") return v * 255 / ((1 << bits) - 1);
  if (bits == 16) return v << 3 | v >> 2;  // 5 bits widened as stb_image does: the top bits repeated
  return v;
}

// A value of `kind` for each pixel, drawn from the whole range.
std::vector<int> draw(const std::string& kind, int n, std::mt19937& rng) {
  const int bits = bits_of(kind);
  const int top = bits <= 8 ? (1 << bits) - 1 : bits == 16 ? 31 : 255;
  std::vector<int> v(n);
  for (auto& x : v) x = static_cast<int>(rng() % (top + 1));
  v[0] = 0;
  v[n - 1] = top;
  return v;
}

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// A PNG of 16-bit samples (gray or RGB), uncompressed (stored deflate
// blocks), with real CRCs and Adler-32.
std::uint32_t crc32(const Bytes& b, std::size_t from) {
  std::uint32_t c = 0xFFFFFFFFu;
  for (std::size_t i = from; i < b.size(); ++i) {
    c ^= b[i];
    for (int k = 0; k < 8; ++k) c = (c >> 1) ^ (0xEDB88320u & (0u - (c & 1)));
  }
  return ~c;
}
void put32be(Bytes& b, std::uint32_t v) {
  for (int s = 24; s >= 0; s -= 8) b.push_back(static_cast<std::uint8_t>(v >> s));
}
void chunk(Bytes& png, const char* type, const Bytes& data) {
  put32be(png, static_cast<std::uint32_t>(data.size()));
  const std::size_t start = png.size();
  png.insert(png.end(), type, type + 4);
  png.insert(png.end(), data.begin(), data.end());
  put32be(png, crc32(png, start));
}
Bytes png16(int w, int h, int channels, const std::vector<int>& samples) {
  Bytes raw;
  for (int y = 0; y < h; ++y) {
    raw.push_back(0);  // filter: none
    for (int i = 0; i < w * channels; ++i) {
      const int v = samples[static_cast<std::size_t>(y) * w * channels + i];
      raw.push_back(static_cast<std::uint8_t>(v >> 8));
      raw.push_back(static_cast<std::uint8_t>(v & 0xFF));
    }
  }
  Bytes z = {0x78, 0x01};
  for (std::size_t at = 0; at < raw.size() || at == 0; at += 65535) {
    const std::size_t n = std::min<std::size_t>(65535, raw.size() - at);
    z.push_back(at + n >= raw.size() ? 1 : 0);
    put16(z, static_cast<std::uint32_t>(n));
    put16(z, static_cast<std::uint32_t>(~n & 0xFFFF));
    z.insert(z.end(), raw.begin() + at, raw.begin() + at + n);
    if (raw.empty()) break;
  }
  std::uint32_t a = 1, b = 0;
  for (auto c : raw) a = (a + c) % 65521, b = (b + a) % 65521;
  put32be(z, b << 16 | a);
  Bytes png = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n'};
  Bytes ihdr;
  put32be(ihdr, w);
  put32be(ihdr, h);
  ihdr.insert(ihdr.end(), {16, static_cast<std::uint8_t>(channels == 3 ? 2 : 0), 0, 0, 0});
  chunk(png, "IHDR", ihdr);
  chunk(png, "IDAT", z);
  chunk(png, "IEND", {});
  return png;
}

}  // namespace

TEST_CASE("BMPs of every header and pixel kind: complete read exactly, cut short refused",
          "[inputs][bmp]") {
  std::mt19937 rng(run_seed());
  INFO(seed_note());
  for (const std::string kind : {"pal1", "pal4", "pal8", "bf16", "bf32", "core24"}) {
    for (const auto& [w, h] : {std::pair<int, int>{1, 1}, {3, 2}, {9, 5}, {17, 3}}) {
      INFO(kind << ", " << w << "x" << h);
      const std::vector<int> values = draw(kind, w * h, rng);
      const Bmp bmp = make_bmp(kind, w, h, values);
      const Image img = load_image(write_scratch("whole.bmp", bmp.bytes));
      REQUIRE(img.width == w);
      REQUIRE(img.height == h);
      for (int i = 0; i < w * h; ++i) CHECK(img.pixels[i] == gray_of(kind, values[i]) / 255.0f);
      // Cut anywhere in the pixel data: before its first byte, mid-way, one
      // byte short of the last row's last pixel.
      const std::size_t needed = bmp.data_at + bmp.row * (h - 1) + (static_cast<std::size_t>(w) * bits_of(kind) + 7) / 8;
      for (std::size_t size : {bmp.data_at, bmp.data_at + (needed - bmp.data_at) / 2, needed - 1}) {
        INFO("cut to " << size << " of " << bmp.bytes.size() << " bytes");
        const Bytes cut(bmp.bytes.begin(), bmp.bytes.begin() + size);
        const std::string path = write_scratch("cut.bmp", cut);
        REQUIRE_THROWS_WITH(load_image(path), ContainsText(path) && ContainsText("truncated BMP"));
      }
      // Without the last row's padding the pixels are all there: read.
      const Bytes unpadded(bmp.bytes.begin(), bmp.bytes.begin() + needed);
      CHECK(load_image(write_scratch("unpadded.bmp", unpadded)).pixels == img.pixels);
    }
  }
  // A cut file is refused by the executables and the histogram alike.
  const Bmp small = make_bmp("pal4", 8, 8, std::vector<int>(64, 3));
  const std::string cut = write_scratch("cut4.bmp", Bytes(small.bytes.begin(), small.bytes.end() - 8));
  expect_refusal("step1-naive", {"--image", cut}, 1, "truncated BMP");
  expect_refusal("histogram", {"--image", cut, "--variant", "serial"}, 1, "truncated BMP");
}

TEST_CASE("BMP palettes stb_image would read past are refused", "[inputs][bmp]") {
  // The OS/2 header with a palette: stb_image 2.27 sizes the palette wrongly.
  const Bmp core = make_bmp("core8", 4, 2, {0, 1, 2, 3, 4, 5, 6, 7});
  const std::string path = write_scratch("os2-palette.bmp", core.bytes);
  REQUIRE_THROWS_WITH(load_image(path), ContainsText(path) && ContainsText("OS/2"));
  // An index past a short palette: stb_image would read its unfilled table.
  Bmp pal = make_bmp("pal8", 4, 1, {0, 1, 2, 255});
  // Keep the first 4 entries: move the pixel data to right after them.
  Bytes shorter;
  for (std::size_t i = 0; i < pal.bytes.size(); ++i)
    if (i < 54 + 16 || i >= pal.data_at) shorter.push_back(pal.bytes[i]);
  shorter[10] = 54 + 16;
  shorter[11] = 0;
  const std::string p2 = write_scratch("short-palette.bmp", shorter);
  REQUIRE_THROWS_WITH(load_image(p2), ContainsText(p2) && ContainsText("palette entry 255 of 4"));
  // Pixel data said to start before any palette.
  Bytes none = pal.bytes;
  none[10] = 54;
  none[11] = 0;
  const std::string p3 = write_scratch("no-palette.bmp", none);
  REQUIRE_THROWS_WITH(load_image(p3), ContainsText(p3) && ContainsText("before any palette"));
}

TEST_CASE("a compressed BMP is refused with the true reason", "[inputs][bmp]") {
  // stb_image reads only BI_RGB and BI_BITFIELDS pixels: RLE8 and RLE4 (and
  // the JPEG and PNG kinds) are named, not called "not an image".
  for (const auto& [kind, compression, name] : std::vector<std::tuple<std::string, int, std::string>>{
           {"pal8", 1, "BI_RLE8"}, {"pal4", 2, "BI_RLE4"}, {"bf32", 4, "BI_JPEG"}, {"bf32", 5, "BI_PNG"}}) {
    Bmp bmp = make_bmp(kind, 4, 2, std::vector<int>(8, 1));
    bmp.bytes[30] = static_cast<std::uint8_t>(compression);
    // An RLE stream: each row a run of four pixels of index 1, then its
    // end-of-line; the last an end-of-bitmap.
    bmp.bytes.resize(bmp.data_at);
    for (std::uint8_t v : {4, 1, 0, 0, 4, 1, 0, 1}) bmp.bytes.push_back(v);
    const std::string path = write_scratch("compressed.bmp", bmp.bytes);
    INFO(name);
    REQUIRE_THROWS_WITH(load_image(path), ContainsText(path) && ContainsText("compressed BMP (" + name + ") is not read") &&
                                              !ContainsText("not an image"));
  }
  Bmp rle = make_bmp("pal8", 4, 2, std::vector<int>(8, 1));
  rle.bytes[30] = 1;
  const std::string path = write_scratch("rle8.bmp", rle.bytes);
  expect_refusal("step1-naive", {"--image", path}, 1, "compressed BMP (BI_RLE8) is not read; save it uncompressed");
  expect_refusal("histogram", {"--image", path, "--variant", "serial"}, 1, "compressed BMP (BI_RLE8)");
}

TEST_CASE("a JPEG with bytes after its end-of-image marker is read, one without the marker refused",
          "[inputs][jpeg]") {
  std::mt19937 rng(run_seed());
  INFO(seed_note());
  std::vector<std::uint8_t> gray(24 * 16);
  for (auto& g : gray) g = static_cast<std::uint8_t>(rng() % 256);
  const Bytes jpeg = encode("jpg", 24, 16, 1, gray);
  const Image plain = load_image(write_scratch("plain.jpg", jpeg));
  for (const Bytes& tail : {Bytes{'x'}, Bytes{0xFF, 0xD8, 0xFF}, Bytes(1000, 0xAB), Bytes{0xFF}}) {
    Bytes longer = jpeg;
    longer.insert(longer.end(), tail.begin(), tail.end());
    INFO(tail.size() << " bytes after the marker");
    CHECK(load_image(write_scratch("trailing.jpg", longer)).pixels == plain.pixels);
  }
  const Bytes cut(jpeg.begin(), jpeg.end() - 2);  // the marker itself gone
  const std::string path = write_scratch("cut.jpg", cut);
  REQUIRE_THROWS_WITH(load_image(path), ContainsText(path) && ContainsText("no end-of-image marker"));
}

TEST_CASE("the histogram reduces every 16-bit source to 8 bits by one rule",
          "[inputs][histogram]") {
  // The rule: round(v * 255 / 65535). 65381 is 254.4 of 255: truncation (v >> 8) gave bin 255 from a PNG, 254 from a PPM.
  std::mt19937 rng(run_seed());
  INFO(seed_note());
  std::vector<int> samples = {65381, 0, 65535, 128, 127, 32767, 32768, 257};
  for (int i = 0; i < 16; ++i) samples.push_back(static_cast<int>(rng() % 65536));
  const int n = static_cast<int>(samples.size());
  std::vector<int> expected(256);
  for (int v : samples) ++expected[(v * 255LL + 32767) / 65535];
  Bytes ppm_raster, pgm_raster;
  for (int v : samples)
    for (int k = 0; k < 3; ++k) ppm_raster.push_back(static_cast<std::uint8_t>(v >> 8)), ppm_raster.push_back(v & 0xFF);
  for (int v : samples) pgm_raster.push_back(static_cast<std::uint8_t>(v >> 8)), pgm_raster.push_back(v & 0xFF);
  std::vector<int> rgb;
  for (int v : samples) rgb.insert(rgb.end(), {v, v, v});
  const std::string header = std::to_string(n) + " 1\n65535\n";
  const std::vector<std::pair<std::string, Bytes>> files = {
      {"gray16.png", png16(n, 1, 1, samples)},
      {"rgb16.png", png16(n, 1, 3, rgb)},
      {"gray16.pgm", [&] { Bytes b(header.begin(), header.end()); b.insert(b.begin(), {'P', '5', '\n'}); b.insert(b.end(), pgm_raster.begin(), pgm_raster.end()); return b; }()},
      {"rgb16.ppm", [&] { Bytes b(header.begin(), header.end()); b.insert(b.begin(), {'P', '6', '\n'}); b.insert(b.end(), ppm_raster.begin(), ppm_raster.end()); return b; }()}};
  for (const auto& [name, bytes] : files) {
    const std::string out = fresh_dir("sixteen") + "/h.csv";
    const Outcome r = run_program("histogram", {"--image", write_scratch(name, bytes), "--variant", "serial",
                                                "--reps", "1", "--output", out});
    INFO(name << ": " << r.err);
    REQUIRE(r.status == 0);
    const std::string counts = slurp(out);
    for (int bin = 0; bin < 256; ++bin) {
      if (expected[bin] == 0) continue;
      const std::string c = std::to_string(expected[bin]);
      INFO("bin " << bin);
      CHECK(counts.find("\n" + std::to_string(bin) + "," + c + "," + c + "," + c + "\n") != std::string::npos);
    }
  }
}

TEST_CASE("a file name with control characters keeps the error on one line", "[inputs][messages]") {
  const std::string dir = fresh_dir("names");
  const std::string name = dir + "/two\nlines\tand\x1b[31mred.png";
  for (const std::string program : {"step1-naive", "histogram"}) {
    const Outcome r = expect_refusal(program, {"--image", name}, 1, "two\\nlines\\tand\\x1b[31mred.png");
    CHECK(r.err.find('\x1b') == std::string::npos);
  }
  // A file that exists, but is no image.
  const std::string real = write_scratch("not\nan image.png", std::string("hello"));
  expect_refusal("step1-naive", {"--image", real}, 1, "not\\nan image.png");
  // The same through the command-line parser's own errors.
  expect_refusal("step1-naive", {"--border", "bad\nvalue"}, 2, "bad\\nvalue");
}

TEST_CASE("a filter value too small for a float is named so", "[inputs][filter]") {
  for (const char* tiny : {"1e-400", "-1e-400", "1e-50", "2e-310"}) {
    const std::string path = write_scratch("tiny.txt", std::string("1 2 3\n4 ") + tiny + " 6\n7 8 9\n");
    INFO(tiny);
    expect_refusal("step1-naive", {"--filter", "file:" + path}, 1, "too small for a float");
  }
  // A float's smallest numbers are still read.
  const std::string ok = write_scratch("small.txt", "1e-40 0 0\n0 1 0\n0 0 -1e-44\n");
  const Outcome r = run_program("step1-naive", {"--filter", "file:" + ok, "--image", "synthetic:8x8", "--reps", "1"});
  INFO(r.err);
  CHECK(r.status == 0);
  expect_refusal("step1-naive", {"--filter", "gaussian:3:1e-400"}, 2, "too small for a double");
}
