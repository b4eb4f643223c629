// Hostile inputs to the histogram and to sweep, the two tools that read
// images and lists of their own: corrupt, truncated, huge and empty images,
// absurd option values and lists, outputs that cannot be written. Each is
// refused in one line naming the thing and the reason, with a non-zero exit
// and no signal, and nothing is written (no output, no temporary, no
// .partial); sweep checks every input before its first run and holds one
// image and one filter at a time.
#include "tests/catch.hpp"

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "common/machinery/platform/process.hpp"
#include "tests/files.hpp"
#include "tests/image_encoders.hpp"
#include "tests/reliability/refusal_checks.hpp"

using namespace conv::test;
using Bytes = std::vector<std::uint8_t>;
namespace fs = std::filesystem;

namespace {

Bytes text(const std::string& s) { return Bytes(s.begin(), s.end()); }

void put32be(Bytes& b, std::size_t at, std::uint32_t v) {
  for (int k = 0; k < 4; ++k) b[at + k] = (v >> (24 - 8 * k)) & 0xFF;
}

// The image option of each tool, and the arguments that make its run small.
std::vector<std::string> image_args(const std::string& program, const std::string& path) {
  if (program == "sweep") return {"--steps", "1", "--images", path};
  return {"--image", path, "--variant", "serial"};
}

// `n` copies of `item`, comma-separated, in arguments of at most 100,000
// characters (Linux takes 128 KiB in one): `option` before each.
std::vector<std::string> long_list(const std::string& option, const std::string& item, std::size_t n) {
  std::vector<std::string> args;
  std::string text;
  for (std::size_t i = 0; i < n; ++i) {
    if (text.size() + item.size() + 1 > 100000) {
      args.insert(args.end(), {option, text});
      text.clear();
    }
    text += (text.empty() ? "" : ",") + item;
  }
  if (!text.empty()) args.insert(args.end(), {option, text});
  return args;
}

std::vector<std::string> operator+(std::vector<std::string> a, const std::vector<std::string>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

}  // namespace

TEST_CASE("the histogram and sweep refuse corrupt, truncated, huge and empty images in one line",
          "[hostile][image][tools]") {
  Bytes png = encode("png", 4, 4, 3, Bytes(48, 77));
  Bytes png_zero = png, png_huge = png, png_cut = png;
  put32be(png_zero, 16, 0);  // IHDR width
  put32be(png_huge, 16, 65537);
  png_cut.resize(png.size() / 2);
  Bytes jpg = encode("jpg", 16, 16, 3, Bytes(16 * 16 * 3, 60));
  Bytes jpg_zero = jpg, jpg_corrupt = jpg;
  for (std::size_t i = 0; i + 8 < jpg_zero.size(); ++i)  // SOF0: FF C0, length, precision, height, width
    if (jpg_zero[i] == 0xFF && jpg_zero[i + 1] == 0xC0) {
      jpg_zero[i + 5] = jpg_zero[i + 6] = jpg_zero[i + 7] = jpg_zero[i + 8] = 0;
      break;
    }
  for (std::size_t i = 2; i < 40 && i < jpg_corrupt.size(); ++i) jpg_corrupt[i] = static_cast<std::uint8_t>(i * 37);
  const std::vector<std::pair<std::string, Bytes>> files = {
      {"zero-wide.png", png_zero},
      {"too-wide.png", png_huge},
      {"half.png", png_cut},
      {"zero-size.jpg", jpg_zero},
      {"corrupt.jpg", jpg_corrupt},
      {"zero.ppm", text("P6\n0 0\n255\n")},
      {"zero-high.pgm", text("P5\n5 0\n255\n")},
      {"huge.ppm", text("P6\n65535 65535\n255\n\x01")},
      {"empty.bmp", {}},
      {"random.png", text("\x89PNG\r\n\x1a\n this is no PNG at all")},
  };
  for (const auto& [name, bytes] : files) {
    const std::string path = write_scratch(name, bytes);
    for (const std::string program : {"histogram", "sweep"}) {
      INFO(program << ": " << name);
      expect_refusal(program, image_args(program, path), 1, name + ": ");
    }
  }
  // A folder, and a file that is not there.
  const std::string folder = fresh_dir("image-folder");
  for (const std::string program : {"histogram", "sweep"}) {
    expect_refusal(program, image_args(program, folder), 1, folder);
    expect_refusal(program, image_args(program, folder + "/no-such.png"), 1, "no-such.png");
  }
}

TEST_CASE("absurd option values to the histogram and sweep are refused in one line naming the option",
          "[hostile][options][tools]") {
  const std::vector<std::pair<std::string, std::vector<std::string>>> histogram = {
      {"--chunk", {"--chunk", "0"}},
      {"--chunk", {"--chunk", "65537"}},
      {"--chunk", {"--chunk", "-1"}},
      {"--wg", {"--wg", "4294967297"}},
      {"--wg", {"--wg", "0"}},
      {"--wg", {"--wg", "1e3"}},
      {"--image", {"--image", "synthetic:65537x1"}},
      {"--image", {"--image", "synthetic:16384x16385"}},
      {"--image", {"--image", "synthetic:0x8"}},
  };
  for (const auto& [needle, args] : histogram) {
    INFO("histogram " << args.back());
    expect_refusal("histogram", args, 2, needle);
  }
  const std::vector<std::string> small = {"--steps", "1", "--images", "8x8"};
  const std::vector<std::pair<std::string, std::vector<std::string>>> sweep = {
      {"--serial-reps", small + std::vector<std::string>{"--serial", "--serial-reps", "99999999"}},
      {"--wgs", small + std::vector<std::string>{"--wgs", "4294967297x1"}},
      {"--wgs", small + std::vector<std::string>{"--wgs", "0x0"}},
      {"16384x16385 is over the limit", {"--steps", "1", "--images", "16384x16385"}},
      {"--filters", small + std::vector<std::string>{"--filters", "box:1..100000"}},
      {"--filters", small + std::vector<std::string>{"--filters", "box:3,,box:5"}},
      // Lists: 10,001 items, and 100,000 (600 KB of arguments, as many as
      // the command line takes in a few arguments): refused by their count.
      {"--filters: 10001 items, more than the 10000", small + long_list("--filters", "box:3", 10001)},
      {"--filters: 100000 items", small + long_list("--filters", "box:3", 100000)},
      {"--wgs: 10001 items", small + long_list("--wgs", "8x8", 10001)},
      {"--images: 10001 items", std::vector<std::string>{"--steps", "1"} + long_list("--images", "8x8", 10001)},
      {"--set block: 10001 items",
       std::vector<std::string>{"--steps", "6", "--images", "8x8", "--set", "block=" + long_list("", "4x4", 10001)[1]}},
      // Lists each within bounds whose product is not.
      {"would make 20000000 runs",
       small + long_list("--filters", "box:3", 10000) + long_list("--wgs", "8x8", 2000)},
  };
  for (const auto& [needle, args] : sweep) {
    INFO("sweep " << needle);
    expect_refusal("sweep", args, 2, needle);
  }
  // --reps: expect_refusal adds its own, so these run by hand.
  for (const std::string reps : {"0", "4294967297", "99999999999999999999", "1e9"}) {
    for (const std::string program : {"histogram", "sweep"}) {
      const Outcome r = run_program(program, program == "sweep" ? small + std::vector<std::string>{"--reps", reps}
                                                                : std::vector<std::string>{"--image", "synthetic:8x8", "--reps", reps});
      INFO(program << " --reps " << reps << ": " << r.err);
      CHECK(r.status == 2);
      CHECK(r.err_lines() == 1);
      CHECK_THAT(r.err, ContainsText("--reps"));
    }
  }
}

TEST_CASE("an output the histogram or sweep cannot write is refused before any work, and nothing is written",
          "[hostile][files][tools]") {
  const std::string dir = fresh_dir("tool-outputs");
  fs::create_directories(dir + "/a-folder.csv");
  std::ofstream(dir + "/a-file") << "x\n";
  const std::vector<std::pair<std::string, std::string>> outputs = {
      {dir + "/a-folder.csv", "is a directory"},
      {dir + "/a-file/out.csv", "a-file is not a folder"},
      {dir + "/no-folder/out.csv", "does not exist"},
      {"/proc/out.csv", "cannot write"},
      {dir + "/out.txt", "must end in .csv"},
  };
  for (const std::string program : {"histogram", "sweep"}) {
    const std::vector<std::string> args = program == "sweep" ? std::vector<std::string>{"--steps", "1", "--images", "8x8"}
                                                             : std::vector<std::string>{"--image", "synthetic:8x8"};
    for (const auto& [output, needle] : outputs) {
      const Outcome r = run_program(program, args + std::vector<std::string>{"--reps", "1", "--output", output});
      INFO(program << " --output " << output << ": " << r.err);
      CHECK(r.signal == 0);
      CHECK((r.status == 1 || r.status == 2));
      CHECK(r.err_lines() == 1);
      CHECK_THAT(r.err, ContainsText(output) && ContainsText(needle));
      CHECK_THAT(r.err, !ContainsText("["));  // no run started (sweep's progress lines are "[1/1] ...")
    }
  }
  CHECK(fs::is_directory(dir + "/a-folder.csv"));
  CHECK(fs::is_empty(dir + "/a-folder.csv"));
  CHECK(read_text(dir + "/a-file") == "x\n");
  for (const auto& entry : fs::directory_iterator(dir))
    CHECK((entry.path().filename() == "a-folder.csv" || entry.path().filename() == "a-file"));
}

TEST_CASE("sweep checks every image and filter before its first run, holding one of each at a time",
          "[hostile][limits][tools]") {
  // Eight of the largest images (8 GiB of pixels together), then a file
  // that is not there: refused at once, under a 1 GiB address-space limit.
  std::vector<std::string> images(8, "16384x16384");
  std::string list;
  for (const auto& i : images) list += i + ",";
  const conv::ChildResult big = run_bounded("sweep", {"--steps", "1", "--images", list + "no-such.png"},
                                                std::uint64_t{1} << 30, 120);
  INFO(big.err);
  CHECK(big.status == 1);
  CHECK(big.signal == 0);
  CHECK(std::count(big.err.begin(), big.err.end(), '\n') == 1);
  CHECK_THAT(big.err, ContainsText("no-such.png: cannot open"));
  CHECK(big.seconds < 20);
  // 9,999 of the widest random filters (640 MiB of weights together), then
  // one that is no filter: refused, under a 256 MiB limit.
  const conv::ChildResult wide = run_bounded("sweep", std::vector<std::string>{"--steps", "1", "--images", "8x8"} +
                                                long_list("--filters", "random:127", 9999) +
                                                std::vector<std::string>{"--filters", "bogus:3"},
                                   std::uint64_t{256} << 20, 120);
  INFO(wide.err);
  CHECK(wide.status == 2);
  CHECK(std::count(wide.err.begin(), wide.err.end(), '\n') == 1);
  CHECK_THAT(wide.err, ContainsText("unknown filter 'bogus:3'"));
}

TEST_CASE("the histogram checks every image before its first run and holds one at a time",
          "[hostile][limits][tools]") {
  // Eight of the largest images (6 GiB of RGB together), then a file that
  // is not there: refused at once, under a 1 GiB address-space limit.
  std::vector<std::string> args;
  for (int i = 0; i < 8; ++i) args.insert(args.end(), {"--image", "noise:16384x16384"});
  args.insert(args.end(), {"--image", "no-such.png", "--variant", "serial", "--reps", "1"});
  const conv::ChildResult bad = run_bounded("histogram", args, std::uint64_t{1} << 30, 120);
  INFO(bad.err);
  CHECK(bad.status == 1);
  CHECK(bad.signal == 0);
  CHECK(std::count(bad.err.begin(), bad.err.end(), '\n') == 1);
  CHECK_THAT(bad.err, ContainsText("no-such.png"));
  CHECK(bad.seconds < 20);
  // Three images of 412 MiB each, counted one after the other under the
  // same limit: all three together would not fit.
  const conv::ChildResult good = run_bounded("histogram",
                                   {"--image", "solid:12000x12000", "--image", "solid:12000x12000:102030", "--image",
                                    "solid:12000x12000:405060", "--variant", "serial", "--reps", "1"},
                                   std::uint64_t{1} << 30, 120);
  INFO(good.err);
  CHECK(good.status == 0);
  CHECK(good.signal == 0);
  CHECK_THAT(good.out, ContainsText("solid:12000x12000:405060"));
}
