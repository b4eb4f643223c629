// JPEG decompression bombs given to every program that reads --image: a
// file of a few hundred bytes declaring the largest size allowed (stb_image
// would allocate the whole frame, 16-bit coefficients besides for a
// progressive one, and decode the missing data as zeros), and a progressive
// file of thousands of scans (stb_image passes over every block once per
// scan). Each must be refused in one line naming the file and the reason,
// before the decoder allocates or decodes anything: the programs run here
// under a 1 GiB address-space limit and a time limit.
#include "tests/catch.hpp"

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "common/machinery/platform/process.hpp"
#include "tests/files.hpp"
#include "tests/reliability/refusal_checks.hpp"

using namespace conv::test;
using Bytes = std::vector<std::uint8_t>;

namespace {

void marker(Bytes& b, int code, const Bytes& body) {
  b.insert(b.end(), {0xFF, static_cast<std::uint8_t>(code), static_cast<std::uint8_t>((body.size() + 2) >> 8),
                     static_cast<std::uint8_t>((body.size() + 2) & 0xFF)});
  b.insert(b.end(), body.begin(), body.end());
}

// A JPEG of `components` components (1x1 sampling) declaring w x h pixels,
// baseline or progressive, written byte by byte: quantization of 1s, one
// Huffman code (one bit, "0") in each table, for DC difference 0 and for
// the end of a block. Its first scan codes every component's DC with
// `dc_bytes` zero bytes (one bit per block codes them all: a flat gray
// image); each of `ac_scans` more scans (progressive only) codes the first
// component's AC coefficients with `ac_bytes` zero bytes.
Bytes jpeg(int w, int h, int components, bool progressive, std::size_t dc_bytes, int ac_scans = 0,
           std::size_t ac_bytes = 0) {
  Bytes b = {0xFF, 0xD8};
  Bytes dqt = {0x00};
  dqt.resize(65, 1);
  marker(b, 0xDB, dqt);
  Bytes sof = {8, static_cast<std::uint8_t>(h >> 8), static_cast<std::uint8_t>(h & 0xFF),
               static_cast<std::uint8_t>(w >> 8), static_cast<std::uint8_t>(w & 0xFF),
               static_cast<std::uint8_t>(components)};
  for (int c = 1; c <= components; ++c) sof.insert(sof.end(), {static_cast<std::uint8_t>(c), 0x11, 0});
  marker(b, progressive ? 0xC2 : 0xC0, sof);
  for (std::uint8_t table : {0x00, 0x10}) {  // DC 0, AC 0: one code of one bit, for symbol 0
    Bytes dht = {table, 1};
    dht.resize(17, 0);
    dht.push_back(0);
    marker(b, 0xC4, dht);
  }
  Bytes sos = {static_cast<std::uint8_t>(components)};
  for (int c = 1; c <= components; ++c) sos.insert(sos.end(), {static_cast<std::uint8_t>(c), 0x00});
  sos.insert(sos.end(), {0, static_cast<std::uint8_t>(progressive ? 0 : 63), 0});
  marker(b, 0xDA, sos);
  b.resize(b.size() + dc_bytes, 0);
  for (int s = 0; s < ac_scans; ++s) {
    marker(b, 0xDA, {1, 1, 0x00, 1, 63, 0});
    b.resize(b.size() + ac_bytes, 0);
  }
  b.insert(b.end(), {0xFF, 0xD9});
  return b;
}

// Every program that reads --image: the steps, and the histogram when built.
std::vector<std::string> image_programs() {
  std::vector<std::string> programs = {"step1-naive"};
  if (std::filesystem::exists(std::string(CLCONV_BIN_DIR) + "/histogram")) programs.push_back("histogram");
  return programs;
}

// Each program runs under a 1 GiB address-space limit and a 60 s time limit.
constexpr std::uint64_t kLimit = std::uint64_t{1} << 30;

void expect_bomb_refused(const std::string& path, const std::string& reason) {
  const std::string name = std::filesystem::path(path).filename().string();
  for (const auto& program : image_programs()) {
    const std::string out = fresh_dir("bomb") + (program == "histogram" ? "/out.csv" : "/out.pfm");
    const conv::ChildResult b = run_bounded(program, {"--image", path, "--reps", "1", "--output", out}, kLimit, 60);
    INFO(program << " --image " << path << ": status " << b.status << ", signal " << b.signal << ", "
                 << b.seconds << " s, stderr:\n" << b.err);
    CHECK_FALSE(b.timed_out);
    CHECK(b.signal == 0);
    CHECK(b.status == 1);
    CHECK(std::count(b.err.begin(), b.err.end(), '\n') == 1);
    CHECK(b.err.rfind(program + ": ", 0) == 0);
    CHECK_THAT(b.err, ContainsText(name + ": ") && ContainsText(reason) && ContainsText("decompression bomb"));
    CHECK(b.seconds < 20);
    CHECK_FALSE(std::filesystem::exists(out));
  }
}

}  // namespace

TEST_CASE("a tiny JPEG declaring a huge size is refused before it is decoded", "[hostile][image][bomb]") {
  // 16384 x 16384 is the most pixels allowed; stb_image would take about
  // 4.5 GiB for this one (three planes, 16-bit coefficients, the output)
  // and fill it from a few hundred bytes.
  const Bytes progressive = jpeg(16384, 16384, 3, true, 1);
  REQUIRE(progressive.size() < 400);
  expect_bomb_refused(write_scratch("bomb-progressive.jpg", progressive),
                      "progressive JPEG of 16384x16384 pixels holds 1 bytes of coded data, less than one bit per "
                      "8x8 block (524288 bytes)");
  expect_bomb_refused(write_scratch("bomb-baseline.jpg", jpeg(16384, 8192, 1, false, 1000)),
                      "JPEG of 16384x8192 pixels holds 1000 bytes of coded data");
  // No scan at all: stb_image would decode the whole frame as zeros.
  expect_bomb_refused(write_scratch("bomb-no-scan.jpg", jpeg(4096, 4096, 1, true, 0)), "holds 0 bytes");
}

TEST_CASE("a progressive JPEG of thousands of scans is refused before it is decoded", "[hostile][image][bomb]") {
  // 4096 x 4096: 262,144 blocks, every one passed over once per scan.
  const Bytes many = jpeg(4096, 4096, 1, true, 4096 * 4096 / 64 / 8, 20000, 2);
  expect_bomb_refused(write_scratch("bomb-scans.jpg", many), "JPEG of more than 100 scans");
}

TEST_CASE("the JPEG bomb checks pass real progressive and baseline files", "[hostile][image][bomb]") {
  // Every block coded in one bit, and 10 scans (libjpeg's count for color):
  // within both bounds, decoded as the flat gray they are.
  const std::string progressive = write_scratch("progressive.jpg", jpeg(40, 24, 1, true, 2, 9, 2));
  const std::string baseline = write_scratch("baseline.jpg", jpeg(40, 24, 3, false, 12));
  const std::string hundred = write_scratch("hundred-scans.jpg", jpeg(16, 16, 1, true, 1, 99, 1));
  for (const auto& path : {progressive, baseline, hundred})
    for (const auto& program : image_programs()) {
      const conv::ChildResult b = run_bounded(program, {"--image", path, "--reps", "1"}, kLimit, 60);
      INFO(program << " --image " << path << ": " << b.err);
      CHECK(b.status == 0);
    }
}
