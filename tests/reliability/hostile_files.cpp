// Hostile files given to the step executables (and, for images, to the
// histogram, which has a loader of its own): headers that claim absurd
// sizes, truncated and empty files, folders where files belong, filter files
// with non-finite numbers, endless files, kernels that do not work. Each must
// end in one line on stderr and a non-zero exit, with no signal and no output
// file. What tests/command_line.cpp and tests/harness_units.cpp cover is not repeated.
#include "tests/catch.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "tests/image_encoders.hpp"
#include "tests/files.hpp"
#include "tests/reliability/refusal_checks.hpp"

using namespace conv::test;
using Bytes = std::vector<std::uint8_t>;

namespace {

Bytes text(const std::string& s) { return Bytes(s.begin(), s.end()); }

void put16(Bytes& b, std::size_t at, std::uint32_t v) {
  b[at] = v & 0xFF;
  b[at + 1] = (v >> 8) & 0xFF;
}
void put32(Bytes& b, std::size_t at, std::uint32_t v) {
  put16(b, at, v & 0xFFFF);
  put16(b, at + 2, v >> 16);
}
void put32be(Bytes& b, std::size_t at, std::uint32_t v) {
  for (int k = 0; k < 4; ++k) b[at + k] = (v >> (24 - 8 * k)) & 0xFF;
}

// A 1x1 gray GIF (GIF89a, one frame, trailer).
Bytes gif_1x1() {
  return {'G', 'I', 'F', '8', '9', 'a', 1, 0, 1, 0, 0x80, 0, 0, 0, 0, 0, 0xFF, 0xFF, 0xFF,
          0x2C, 0, 0, 0, 0, 1, 0, 1, 0, 0, 2, 2, 0x44, 0x01, 0, 0x3B};
}

// An uncompressed (type 3) or run-length coded (type 11) 8-bit gray TGA.
Bytes tga_gray(int w, int h, bool rle) {
  Bytes b(18, 0);
  b[2] = rle ? 11 : 3;
  put16(b, 12, static_cast<std::uint32_t>(w));
  put16(b, 14, static_cast<std::uint32_t>(h));
  b[16] = 8;
  for (int i = 0; i < w * h; ++i) {
    if (rle) b.push_back(0);  // a raw packet of one pixel
    b.push_back(static_cast<std::uint8_t>(i * 7));
  }
  return b;
}

// A 24-bit BMP header (no pixels) with the given width and height fields.
Bytes bmp_header(std::int64_t w, std::int64_t h) {
  Bytes b(58, 0);
  b[0] = 'B';
  b[1] = 'M';
  put32(b, 2, 58);
  put32(b, 10, 54);
  put32(b, 14, 40);
  put32(b, 18, static_cast<std::uint32_t>(w));
  put32(b, 22, static_cast<std::uint32_t>(h));
  put16(b, 26, 1);
  put16(b, 28, 24);
  return b;
}

// Every program that reads --image: the steps, and the histogram when built.
std::vector<std::string> image_programs() {
  std::vector<std::string> programs = step_programs();
  if (std::filesystem::exists(std::string(CLCONV_BIN_DIR) + "/histogram"))
    programs.push_back("histogram");
  return programs;
}

// Every file, written to the scratch folder; the path is the needle.
std::vector<std::string> write_all(const std::vector<std::pair<std::string, Bytes>>& files) {
  std::vector<std::string> paths;
  for (const auto& [name, bytes] : files) paths.push_back(write_scratch(name, bytes));
  return paths;
}

}  // namespace

TEST_CASE("image headers that claim absurd sizes are refused in one line", "[hostile][image]") {
  Bytes png = encode("png", 1, 1, 1, {0});  // IHDR width and height: bytes 16..23
  Bytes png_wide = png, png_big = png;
  put32be(png_wide, 16, 65537);
  put32be(png_big, 16, 16384);
  put32be(png_big, 20, 16384);  // accepted size, but the data holds one pixel
  Bytes jpg = encode("jpg", 8, 8, 1, Bytes(64, 100));
  for (std::size_t i = 0; i + 8 < jpg.size(); ++i)  // SOF0: FF C0, length, precision, h, w
    if (jpg[i] == 0xFF && jpg[i + 1] == 0xC0) {
      jpg[i + 5] = jpg[i + 6] = jpg[i + 7] = jpg[i + 8] = 0xFF;
      break;
    }
  // A Huffman table whose 16 code counts claim 16 x 255 codes; a table
  // holds 256 (stb_image 2.27 writes past its arrays: stb issue 1291).
  Bytes jpg_dht = encode("jpg", 8, 8, 1, Bytes(64, 100));
  for (std::size_t i = 0; i + 21 < jpg_dht.size(); ++i)  // DHT: FF C4, length, class/id, counts
    if (jpg_dht[i] == 0xFF && jpg_dht[i + 1] == 0xC4) {
      std::fill(jpg_dht.begin() + i + 5, jpg_dht.begin() + i + 21, 0xFF);
      break;
    }
  // The same overflow from a table cut off by the end of the file: stb_image
  // reads the missing counts as zeros and the bytes it has as counts.
  Bytes jpg_dht_short = {0xFF, 0xD8, 0xFF, 0xC4, 0x21, 0x00};
  jpg_dht_short.resize(6 + 17 * 5, 0);
  for (std::uint8_t c : {0x50, 0x66, 0x36, 0x54, 0x35}) jpg_dht_short.push_back(c);
  Bytes gif = gif_1x1();
  put16(gif, 6, 65535);
  put16(gif, 8, 65535);
  Bytes tga = tga_gray(2, 2, false);
  put16(tga, 12, 65535);
  put16(tga, 14, 65535);

  const auto paths = write_all({
      {"wide.png", png_wide},
      {"big-header.png", png_big},
      {"huge.jpg", jpg},
      {"huffman.jpg", jpg_dht},
      {"huffman-short.jpg", jpg_dht_short},
      {"huge.gif", gif},
      {"huge.tga", tga},
      {"wide.bmp", bmp_header(0x7FFFFFFF, 1)},
      {"int-min.bmp", bmp_header(1, -2147483648LL)},
      {"huge.pgm", text("P5\n70000 70000\n255\n\x01\x02")},
      {"overflow.pgm", text("P5\n99999999999999999999 1\n255\n\x01")},
      {"overflow-max.pgm", text("P5\n1 1\n99999999999999\n\x01\x01")},
      {"huge.pfm", text("Pf\n65536 65536\n-1.0\n\x01\x02\x03\x04")},
      {"negative.pfm", text("Pf\n-3 4\n-1.0\n\x01\x02\x03\x04")},
      {"overflow.pfm", text("Pf\n99999999999999999999999 1\n-1.0\n\x01\x02\x03\x04")},
      {"huge.ppm", text("P6\n70000 70000\n255\n\x01\x02")},
      {"big-header.ppm", text("P6\n16384 16384\n255\n\x01\x02")},
  });
  for (const auto& program : image_programs())
    for (const auto& path : paths) {
      INFO(program << " --image " << path);
      expect_refusal(program, {"--image", path}, 1, std::filesystem::path(path).filename());
    }
}

TEST_CASE("truncated and empty files are refused in one line", "[hostile][image]") {
  Bytes pfm = text("Pf\n4 4\n-1.0\n");
  pfm.resize(pfm.size() + 4 * 4 * 4 - 5, 0x3F);
  Bytes ppm = encode("ppm", 16, 16, 3, Bytes(16 * 16 * 3, 90));
  ppm.resize(ppm.size() - 100);
  Bytes tga = tga_gray(16, 16, false), tga_rle = tga_gray(16, 16, true), gif = gif_1x1();
  tga.resize(tga.size() - 40);
  tga_rle.resize(tga_rle.size() - 40);
  // 17 of the 18 header bytes, claiming 1000x1000: stb_image reads zeros for
  // the rest, header byte and pixels alike.
  Bytes tga_header = tga_gray(2, 2, false);
  put16(tga_header, 12, 1000);
  put16(tga_header, 14, 1000);
  tga_header.resize(17);
  gif.resize(gif.size() - 4);
  const auto images = write_all({{"short.pfm", pfm},
                                 {"short.ppm", ppm},
                                 {"short.tga", tga},
                                 {"short-rle.tga", tga_rle},
                                 {"short-header.tga", tga_header},
                                 {"short.gif", gif},
                                 {"empty.pfm", {}},
                                 {"empty.png", {}}});
  const std::string empty_filter = write_scratch("empty-filter.txt", "");
  const std::string empty_kernel = write_scratch("empty.cl", "");
  for (const auto& program : image_programs()) {
    INFO(program);
    for (const auto& path : images)
      expect_refusal(program, {"--image", path}, 1, std::filesystem::path(path).filename());
  }
  for (const auto& program : step_programs()) {
    INFO(program);
    expect_refusal(program, {"--filter", "file:" + empty_filter}, 1, "empty-filter.txt");
    // Not "use the embedded kernel", which is what an empty source means inside.
    expect_refusal(program, {"--kernel", empty_kernel}, 1, "empty.cl: file is empty");
  }
  // The complete files load: the checks above are about the missing bytes.
  for (auto [name, bytes] : std::vector<std::pair<std::string, Bytes>>{
           {"whole.tga", tga_gray(16, 16, false)},
           {"whole-rle.tga", tga_gray(16, 16, true)}}) {
    const Outcome r = run_program("step1-naive", {"--image", write_scratch(name, bytes), "--reps", "1"});
    INFO(name << ": " << r.err);
    CHECK(r.status == 0);
  }
}

TEST_CASE("a decoder's complaint quoting the file's bytes stays on one line", "[hostile][image]") {
  // An unknown critical PNG chunk whose type holds CR, LF and ^Z: stb_image
  // names the chunk by its bytes in its failure reason.
  Bytes png = encode("png", 2, 2, 1, {1, 2, 3, 4});
  const Bytes chunk = {0, 0, 0, 0, 'I', '\r', '\n', 0x1A, 0, 0, 0, 0};  // length, type, CRC
  png.insert(png.begin() + 33, chunk.begin(), chunk.end());           // after IHDR
  const std::string path = write_scratch("odd-chunk.png", png);
  for (const auto& program : image_programs()) {
    INFO(program);
    const Outcome r = expect_refusal(program, {"--image", path}, 1, "odd-chunk.png");
    CHECK(r.err.find('\r') == std::string::npos);
  }
}

TEST_CASE("folders where files belong are refused in one line", "[hostile][files]") {
  const std::string dir = fresh_dir("a-folder");
  for (const auto& program : image_programs()) {
    INFO(program);
    expect_refusal(program, {"--image", dir}, 1, "is a directory");
  }
  for (const auto& program : step_programs()) {
    INFO(program);
    expect_refusal(program, {"--filter", "file:" + dir}, 1, "directory");
    expect_refusal(program, {"--kernel", dir}, 1, "directory");
    // --output naming an existing folder: refused before any work.
    const std::string folder_pfm = fresh_dir("out") + "/result.pfm";
    std::filesystem::create_directory(folder_pfm);
    const Outcome r = run_program(program, {"--image", "synthetic:8x8", "--output", folder_pfm});
    INFO(r.err);
    CHECK(r.signal == 0);
    CHECK(r.status == 1);
    CHECK(r.err_lines() == 1);
    CHECK(r.err.find("is a directory") != std::string::npos);
    CHECK(std::filesystem::is_empty(folder_pfm));
  }
}

TEST_CASE("an output that cannot be written leaves nothing behind", "[hostile][files]") {
  // /proc accepts no new files, even from root: the write itself fails.
  for (const auto& program : step_programs()) {
    const Outcome r = run_program(program, {"--image", "synthetic:8x8", "--reps", "1",
                                            "--output", "/proc/clconv-out.pfm"});
    INFO(program << ": " << r.err);
    CHECK(r.signal == 0);
    CHECK(r.status == 1);
    CHECK(r.err_lines() == 1);
    CHECK(r.err.find("/proc/clconv-out.pfm") != std::string::npos);
    CHECK_FALSE(std::filesystem::exists("/proc/clconv-out.pfm"));
  }
}

TEST_CASE("filter files with NaN, infinities or overflowing numbers are refused", "[hostile][filter]") {
  for (const char* bad : {"nan", "inf", "-Infinity", "NAN(123)", "1e39", "-1e39", "0x1p200"}) {
    const std::string path = write_scratch("bad-number.txt", std::string("1 2 3\n4 ") + bad);
    for (const auto& program : step_programs()) {
      INFO(program << ", filter value " << bad);
      expect_refusal(program, {"--filter", "file:" + path}, 1, "not a finite float");
    }
  }
}

TEST_CASE("a Gaussian with an absurd sigma still has finite weights", "[hostile][filter]") {
  // exp(-d^2 / (2 sigma^2)) underflows to 0 for every tap: the weights must
  // not become 0/0.
  for (const char* spec : {"gaussian:3:1e-300", "gaussian:2:0.01", "gaussian:6:1e-200",
                           "gaussian:5:1e300"}) {
    const Outcome r = run_program(step_programs().front(), {"--image", "synthetic:9x7", "--filter",
                                                            spec, "--reps", "1", "--verify"});
    INFO(spec << ": " << r.err);
    CHECK(r.status == 0);
    CHECK(r.err.find("- OK") != std::string::npos);
  }
}

TEST_CASE("endless files are refused, not read until memory runs out", "[hostile][files]") {
  for (const auto& program : step_programs()) {
    INFO(program);
    expect_refusal(program, {"--filter", "file:/dev/zero"}, 1, "/dev/zero: is a device");
    expect_refusal(program, {"--kernel", "/dev/zero"}, 1, "/dev/zero: is a device");
    expect_refusal(program, {"--image", "/dev/zero"}, 1, "/dev/zero: is a device");
  }
}

TEST_CASE("kernel files that do not work are refused, and no output is written", "[hostile][kernel]") {
  const std::string broken = write_scratch("broken.cl", "__kernel void convolve( { nonsense }\n");
  const std::string garbage = write_scratch("garbage.cl", encode("png", 4, 4, 1, Bytes(16, 200)));
  const std::string other = write_scratch(
      "other-name.cl", "__kernel void correlate(__global float* out) { out[0] = 0.0f; }\n");
  const std::string short_args = write_scratch(
      "short-args.cl", "__kernel void convolve(__global float* out) { out[0] = 0.0f; }\n");
  for (const auto& program : step_programs()) {
    INFO(program);
    const std::vector<std::string> small = {"--image", "synthetic:8x8", "--filter", "box:3"};
    auto with = [&](std::vector<std::string> args) {
      args.insert(args.begin(), small.begin(), small.end());
      return args;
    };
    // A build log takes several lines; the first names the file.
    expect_refusal(program, with({"--kernel", broken}), 1, "broken.cl", {}, false);
    expect_refusal(program, with({"--kernel", garbage}), 1, "garbage.cl", {}, false);
    expect_refusal(program, with({"--kernel", other}), 1, "no kernel named 'convolve'");
    // Compiles, but takes fewer arguments than the launcher sets.
    expect_refusal(program, with({"--kernel", short_args}), 1,
                   "short-args.cl: its kernel does not take the arguments " + program + " sets");
  }
}
