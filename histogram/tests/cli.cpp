// build/bin/histogram as a user meets it: errors are one line on stderr with
// exit status 1 (2 for usage); --verify, --output, --csv and --breakdown do
// what --help says.
#include "tests/catch.hpp"
#include <filesystem>
#include <sstream>

#include "histogram/tests/support.hpp"
#include "histogram/variants.hpp"

using namespace conv::histogram;
using Catch::Matchers::StartsWith;

namespace {

void expect_error(const test::Outcome& r, int status, const std::string& needle) {
  INFO("stderr: " << r.err);
  CHECK(r.status == status);
  CHECK(r.err_lines() == 1);
  CHECK_THAT(r.err, ContainsText(needle));
}

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream s(text);
  for (std::string line; std::getline(s, line);) out.push_back(line);
  return out;
}

}  // namespace

TEST_CASE("bad files exit 1 with one line naming the file", "[histogram][cli]") {
  const std::string dir = test::scratch_dir();
  expect_error(test::run_histogram({"--image", dir + "/missing.png"}), 1, "missing.png");
  const std::string corrupt =
      test::write_scratch("corrupt.jpg", "\xff\xd8\xff garbage, not a JPEG");
  expect_error(test::run_histogram({"--image", corrupt}), 1, "corrupt.jpg");
  const std::string empty = test::write_scratch("empty.png", "");
  expect_error(test::run_histogram({"--image", empty}), 1, "empty.png");
  expect_error(test::run_histogram({"--image", "synthetic:4x4", "--variant", "global-partials",
                                    "--kernel", dir + "/none.cl"}),
               1, "none.cl");
  expect_error(test::run_histogram({"--image", "synthetic:4x4", "--output", dir + "/no/dir/h.csv"}),
               1, "does not exist");
  // Builds, but takes fewer arguments than the variant sets.
  const std::string short_args =
      test::write_scratch("short-args.cl", "__kernel void count(__global uint* out) { out[0] = 0; }\n");
  expect_error(test::run_histogram({"--image", "synthetic:4x4", "--variant", "global-partials", "--kernel",
                                    short_args}),
               1, "short-args.cl: its kernel does not take the arguments the global-partials variant sets");
}

TEST_CASE("usage errors exit 2 with one line", "[histogram][cli]") {
  expect_error(test::run_histogram({"--variant", "fastest"}), 2, "--variant");
  expect_error(test::run_histogram({"--variant", "serial,nope"}), 2, "nope");
  expect_error(test::run_histogram({"--chunk", "0"}), 2, "--chunk");
  expect_error(test::run_histogram({"--wg", "-3"}), 2, "--wg");
  expect_error(test::run_histogram({"--image", "synthetic:0x5"}), 2, "must be positive");
  expect_error(test::run_histogram({"--image", "solid:4x4:blue"}), 2, "RRGGBB");
  expect_error(test::run_histogram({"--output", "hist.txt"}), 2, ".csv");
  expect_error(test::run_histogram({"--variant", "all", "--kernel", "x.cl"}), 2, "--kernel");
  expect_error(test::run_histogram({"--no-such-option"}), 2, "no-such-option");
  expect_error(test::run_histogram({"--image", ""}), 2, "--image: empty");
}

TEST_CASE("verify, output and csv on every variant", "[histogram][cli]") {
  const std::string out = test::scratch_dir() + "/hist.csv";
  const auto r = test::run_histogram({"--image", "synthetic:123x45:7", "--variant", "all", "--reps",
                                      "2", "--verify", "--csv", "--output", out});
  INFO(r.err);
  REQUIRE(r.status == 0);
  // a progress line per variant, serial too, and one "verify: ... OK" per device variant
  const std::size_t runs = device_variants().size() + 1;
  CHECK(static_cast<std::size_t>(std::count(r.err.begin(), r.err.end(), '\n')) == runs + device_variants().size());
  CHECK_THAT(r.err, ContainsText("histogram: [1/" + std::to_string(runs) + "] serial on synthetic:123x45:7\n"));
  CHECK_THAT(r.err, !ContainsText("FAILED"));

  const auto csv = lines(r.out);
  REQUIRE(csv.size() > 1);
  CHECK_THAT(csv[0], StartsWith("device,driver,date,step,variant,phase,image,width,height"));
  for (std::size_t i = 1; i < csv.size(); ++i) {
    CHECK_THAT(csv[i], ContainsText(",histogram,"));
    CHECK_THAT(csv[i], !StartsWith("device,"));
  }
  CHECK_THAT(r.out, ContainsText(",serial,histogram,") && ContainsText(",local-atomic,kernels,"));

  const auto counts = lines(test::read_file(out));
  REQUIRE(counts.size() == 257);
  CHECK(counts[0] == "bin,r,g,b");
  for (const auto& entry : std::filesystem::directory_iterator(test::scratch_dir()))
    CHECK_THAT(entry.path().string(), !ContainsText(".tmp."));
}

TEST_CASE("verify fails (exit 1) for a wrong kernel", "[histogram][cli]") {
  // Counts every pixel twice into red.
  const std::string wrong = test::write_scratch(
      "wrong.cl",
      "__kernel void count(__global const uchar* rgb, const uint pixels, const uint chunk,\n"
      "                    __global uint* histogram) {\n"
      "  const uint p = get_global_id(0);\n"
      "  if (p < pixels) atomic_add(&histogram[rgb[3 * p]], 2);\n"
      "}\n");
  const auto r =
      test::run_histogram({"--image", "synthetic:20x20", "--variant", "local-atomic", "--chunk",
                           "1", "--wg", "16", "--kernel", wrong, "--verify", "--reps", "1"});
  CHECK(r.status == 1);
  CHECK_THAT(r.err, ContainsText("FAILED"));
}

TEST_CASE("breakdown times every phase, cold and warm", "[histogram][cli]") {
  const std::string cache = test::scratch_dir() + "/xdg";
  const auto r =
      test::run_histogram({"--image", "synthetic:64x64", "--variant", "serial,global-partials",
                           "--breakdown", "--reps", "2", "--csv", "--verify"},
                          {{"XDG_CACHE_HOME", cache}});
  INFO(r.err);
  REQUIRE(r.status == 0);
  for (const char* phase :
       {"platform", "context", "queue", "read source", "build (cold)", "build (warm)",
        "create buffers", "upload image", "first launch", "kernels", "read back", "host merge",
        "total (cold build)", "total (warm build)", "serial count"})
    CHECK_THAT(r.out, ContainsText("," + std::string(phase) + ","));
  CHECK(std::filesystem::exists(cache + "/clconv/programs"));

  const auto off =
      test::run_histogram({"--image", "synthetic:64x64", "--variant", "local-atomic", "--breakdown",
                           "--reps", "1", "--csv"},
                          {{"XDG_CACHE_HOME", cache + "2"}, {"CLCONV_NO_BINARY_CACHE", "1"}});
  REQUIRE(off.status == 0);
  CHECK_THAT(off.out, !ContainsText("build (warm)"));
  CHECK_FALSE(std::filesystem::exists(cache + "2/clconv"));
}

TEST_CASE("the floor kernels of bench/histogram.sh run in local-atomic's place",
          "[histogram][cli]") {
  for (const char* floor : {"floor_launch.cl", "floor_read.cl"}) {
    const auto r = test::run_histogram({"--image", "noise:61x37", "--variant", "local-atomic",
                                        "--kernel", std::string(CLCONV_HISTOGRAM_DIR) + "/" + floor,
                                        "--chunk", "3", "--wg", "5", "--reps", "1", "--csv"});
    INFO(floor << ": " << r.err);
    CHECK(r.status == 0);
    CHECK_THAT(r.out, ContainsText(",local-atomic,kernels,noise:61x37,"));
  }
}

TEST_CASE("loads-ahead's floor kernels of bench/histogram.sh run in its place, and count nothing",
          "[histogram][cli]") {
  for (const char* floor : {"floor_ahead_empty.cl", "floor_ahead_read.cl", "floor_ahead_count.cl"}) {
    const std::vector<std::string> args = {"--image", "noise:61x37", "--variant", "loads-ahead",
                                           "--kernel", std::string(CLCONV_HISTOGRAM_DIR) + "/" + floor,
                                           "--chunk", "3", "--wg", "5", "--reps", "1", "--csv"};
    const auto r = test::run_histogram(args);
    INFO(floor << ": " << r.err);
    CHECK(r.status == 0);
    CHECK_THAT(r.out, ContainsText(",loads-ahead,kernels,noise:61x37,"));
    // Not a histogram: checked against the serial count, it is refused.
    auto checked = args;
    checked.push_back("--verify");
    CHECK(test::run_histogram(checked).status == 1);
  }
}
