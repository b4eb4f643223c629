// Every device variant, exactly equal to the serial count: on the smallest
// image, on pixel counts that are no multiple of the chunk or the work-group,
// on one color everywhere (the worst contention), and on random images.
#include "tests/catch.hpp"

#include <algorithm>

#include "common/core/errors.hpp"
#include "common/core/program.hpp"
#include "common/machinery/files.hpp"
#include "histogram/counts.hpp"
#include "histogram/tests/support.hpp"

using namespace conv::histogram;
using conv::histogram::test::run_seed;
using conv::histogram::test::seed_note;

namespace {

// One run into poisoned buffers (run_variant's first run), no timing.
Counts device_count(const RgbImage& image, const Variant& variant, const Settings& settings) {
  return run_variant(test::device(), image, variant, settings, 1, 0).counts;
}

void check_all_variants(const RgbImage& image, const Settings& settings) {
  const Counts expected = serial_count(image);
  for (const auto& v : device_variants()) {
    INFO(v.name << " on " << image.width << "x" << image.height << ", chunk " << settings.chunk
                << ", wg " << settings.wg << "; " << seed_note());
    CHECK(describe_difference(device_count(image, v, settings), expected) == "");
  }
}

Settings with(unsigned chunk, unsigned wg) {
  Settings s;
  s.chunk = chunk;
  s.wg = wg;
  return s;
}

}  // namespace

TEST_CASE("every variant counts a 1x1 image", "[histogram][variants]") {
  const RgbImage one = solid_rgb(1, 1, 0, 128, 255);
  check_all_variants(one, Settings());
  check_all_variants(one, with(1, 1));
}

TEST_CASE("every variant is exact when pixels are no multiple of chunk or work-group",
          "[histogram][variants]") {
  std::mt19937 rng(run_seed());
  // 16 pixels per item, 8 items per group: 128 pixels per group (local-*).
  for (auto [w, h] : {std::pair{129, 1}, {127, 1}, {1, 131}, {17, 3}, {100, 41}}) {
    const RgbImage image = test::random_image(w, h, rng);
    check_all_variants(image, with(16, 8));
    // Odd everything: groups of 15 pixels, so local-words meets groups that
    // start and end at every offset within its four-pixel words.
    check_all_variants(image, with(3, 5));
    check_all_variants(image, with(1, 1));
  }
  // The defaults (1024 or 128 pixels per item), just past a whole group.
  check_all_variants(test::random_image(257, 257, rng), Settings());
  // 182 x 181 = 32942: one whole local group of the defaults (32768) and 174 more.
  check_all_variants(test::random_image(182, 181, rng), Settings());
}

TEST_CASE("every variant is exact on a single-color image (worst contention)",
          "[histogram][variants]") {
  for (auto [r, g, b] : {std::tuple{0, 0, 0}, {255, 255, 255}, {7, 7, 7}, {255, 0, 128}}) {
    const RgbImage image = solid_rgb(301, 203, static_cast<std::uint8_t>(r),
                                     static_cast<std::uint8_t>(g), static_cast<std::uint8_t>(b));
    check_all_variants(image, Settings());
    check_all_variants(image, with(7, 64));
  }
}

TEST_CASE("every variant is exact on random images", "[histogram][variants]") {
  std::mt19937 rng(run_seed());
  const unsigned wgs[] = {1, 8, 64, 256};
  for (int i = 0; i < 4; ++i) {
    const int w = 1 + static_cast<int>(rng() % 400), h = 1 + static_cast<int>(rng() % 300);
    const unsigned chunk = 1 + rng() % 300, wg = wgs[rng() % 4];
    const RgbImage image = i % 2
                               ? test::random_image(w, h, rng)
                               : synthetic_rgb(w, h, static_cast<std::uint32_t>(rng() % 1000 + 1));
    check_all_variants(image, with(chunk, wg));
  }
}

TEST_CASE("poisoned buffers expose a kernel that skips work", "[histogram][variants]") {
  // Each broken kernel leaves memory unwritten whose right value is 0: a
  // partial it never zeroes, a bin no pixel falls in. A fresh buffer of
  // zeros would pass as those counts; the poison does not.
  const std::string dir = CLCONV_HISTOGRAM_DIR;
  struct Broken {
    const char* variant;
    const char* file;
    const char* good;
    const char* bad;
  } cases[] = {
      {"global-partials", "global_partials.cl", "for (uint b = 0; b < PARTIAL; ++b) mine[b] = 0;", ""},
      {"device-merge", "device_merge.cl", "if (b >= PARTIAL || s >= out_rows) return;",
       "if (b + 1 >= PARTIAL || s >= out_rows) return;"},
  };
  std::mt19937 rng(run_seed());
  RgbImage image = test::random_image(64, 33, rng);
  for (std::size_t i = 2; i < image.rgb.size(); i += 3) image.rgb[i] = std::min<std::uint8_t>(image.rgb[i], 254);
  const Counts expected = serial_count(image);
  REQUIRE(expected.back() == 0);  // no blue 255: device-merge's skipped bin is 0
  for (const auto& c : cases) {
    INFO(c.variant << "; " << seed_note());
    Settings s = with(16, 4);
    s.kernel_source = conv::read_text_file(dir + "/" + c.file);
    const auto at = s.kernel_source.find(c.good);
    REQUIRE(at != std::string::npos);
    s.kernel_source.replace(at, std::string(c.good).size(), c.bad);
    s.kernel_label = std::string("broken ") + c.file;
    // Wrong counts, or a second run that counts differently (the partials
    // still hold the first run's counts): either way, caught.
    std::string caught;
    try {
      caught = describe_difference(device_count(image, find_variant(c.variant), s), expected);
    } catch (const conv::KernelFault& e) {
      caught = e.what();
    }
    INFO(caught);
    CHECK(caught != "");
  }
}

TEST_CASE("the last-group variants leave their sums zero: every call counts the same",
          "[histogram][variants]") {
  // run_variant throws when a later run or call counts differently from the
  // first; these variants have no fill, so that is where a forgotten reset shows.
  std::mt19937 rng(run_seed());
  const RgbImage image = test::random_image(97, 61, rng);
  const Counts expected = serial_count(image);
  INFO(seed_note());
  for (const char* variant : {"one-launch", "loads-ahead", "lane-copies"}) {
    for (auto s : {Settings(), with(5, 16), with(1, 1)}) {
      INFO(variant);
      const VariantRun run = run_variant(test::device(), image, find_variant(variant), s, 3, 1);
      CHECK(describe_difference(run.counts, expected) == "");
    }
    // Without the reset of the groups-done counter, no group after the first
    // launch is ever the last: the second run reads the first run's counts or
    // poison, and must be refused.
    for (const char* reset : {"if (lid == 0) atomic_xchg(&sums[PARTIAL], 0);",
                              "histogram[b] = atomic_xchg(&sums[b], 0);"}) {
      Settings s = with(5, 16);
      s.kernel_source =
          conv::read_text_file(std::string(CLCONV_HISTOGRAM_DIR) + "/" + find_variant(variant).file);
      const auto at = s.kernel_source.find(reset);
      REQUIRE(at != std::string::npos);
      const std::string broken = std::string(reset).find("histogram[b]") == 0
                                     ? "histogram[b] = sums[b];"
                                     : "if (lid == 0) sums[PARTIAL] = sums[PARTIAL];";
      s.kernel_source.replace(at, std::string(reset).size(), broken);
      s.kernel_label = find_variant(variant).file + " without its reset";
      INFO(variant << ": " << broken);
      CHECK_THROWS_WITH(run_variant(test::device(), image, find_variant(variant), s, 2, 0),
                        ContainsText("counted differently"));
    }
  }
}

TEST_CASE("loads-ahead counts every vector once, whatever its share of the ring",
          "[histogram][variants]") {
  // A work-item of loads-ahead counts ceil(3 * chunk * wg / 16 / wg) vectors
  // or one fewer, through a ring of AHEAD = 4 registers: these chunks give
  // it from under one vector to nine, so the loop ends at every position of
  // the ring, and the loads past the group's share (zero, not counted) run
  // into the next group's vectors and past the image's end.
  std::mt19937 rng(run_seed());
  const Variant& ahead = find_variant("loads-ahead");
  for (auto [w, h] : {std::pair{53, 37}, {1000, 3}}) {
    const RgbImage image = test::random_image(w, h, rng);
    const Counts expected = serial_count(image);
    for (unsigned chunk : {5u, 11u, 16u, 21u, 27u, 32u, 37u, 43u, 48u}) {
      INFO("loads-ahead on " << w << "x" << h << ", chunk " << chunk << ", wg 16; " << seed_note());
      CHECK(describe_difference(device_count(image, ahead, with(chunk, 16)), expected) == "");
    }
  }
}

TEST_CASE("every way of waiting and reading back gives the same counts", "[histogram][variants]") {
  // run_variant's timed runs read back with read_back(), its whole calls
  // with call(): both are checked against the first run, which is checked
  // here against the serial count. Host-merge variants read their partials
  // whatever --read says.
  std::mt19937 rng(run_seed());
  const RgbImage image = test::random_image(211, 67, rng);
  const Counts expected = serial_count(image);
  INFO(seed_note());
  for (Wait wait : {Wait::block, Wait::spin}) {
    for (ReadBack read : {ReadBack::copy, ReadBack::map}) {
      for (const auto& v : device_variants()) {
        Settings s = with(9, 32);
        s.wait = wait;
        s.read = read;
        INFO(v.name << ", wait " << static_cast<int>(wait) << ", read " << static_cast<int>(read));
        const VariantRun run = run_variant(test::device(), image, v, s, 2, 1);
        CHECK(describe_difference(run.counts, expected) == "");
      }
    }
  }
}

TEST_CASE("lane-copies' 16-bit counters: the largest accepted chunk counts one color exactly",
          "[histogram][variants]") {
  // One work-item (--wg 1) owns every local counter, so on a one-color image
  // it adds every pixel of the group into one 16-bit counter per channel:
  // the plan's bound is what keeps that counter from carrying into the
  // next bin's half of the word.
  const Variant& lanes = find_variant("lane-copies");
  const conv::DeviceFacts& facts = test::device().facts();
  unsigned largest = 0;
  std::string refusal;
  for (unsigned chunk = 65536; chunk > 0 && !largest; chunk -= 1) {
    try {
      make_plan(lanes, chunk, with(chunk, 1), facts);
      largest = chunk;
    } catch (const conv::Error& e) {
      refusal = e.what();
    }
  }
  CHECK_THAT(refusal, ContainsText("--chunk") && ContainsText("16-bit"));
  REQUIRE(largest > 50000);  // at most 6 bytes of a channel in 16: about 58000
  REQUIRE(largest < 65536);
  for (auto [r, g, b] : {std::tuple{0, 0, 0}, {255, 1, 254}}) {
    const RgbImage image = solid_rgb(largest, 1, static_cast<std::uint8_t>(r),
                                     static_cast<std::uint8_t>(g), static_cast<std::uint8_t>(b));
    CHECK(describe_difference(device_count(image, lanes, with(largest, 1)), serial_count(image)) ==
          "");
  }
}

TEST_CASE("sizes over a device limit are errors naming the option, not crashes",
          "[histogram][variants]") {
  conv::DeviceFacts f;
  f.max_work_group = 2048;
  f.max_work_item_sizes = {2048, 2048, 64};
  f.max_alloc_bytes = std::size_t{64} << 20;
  f.local_mem_bytes = 32 << 10;
  auto plan = [&](const char* variant, unsigned chunk, unsigned wg, bool gpu) {
    f.is_gpu = gpu;
    return make_plan(find_variant(variant), std::size_t{1} << 20, with(chunk, wg), f);
  };
  CHECK_NOTHROW(plan("private", 64, 2048, true));
  CHECK_THROWS_WITH(plan("local-atomic", 64, 4096, true), ContainsText("--wg"));
  CHECK_THROWS_WITH(plan("global-partials", 1, 64, true), ContainsText("--chunk"));
  f.local_mem_bytes = 2048;  // less than one 3 KiB local histogram
  CHECK_THROWS_WITH(plan("local-words", 64, 256, true), ContainsText("local memory"));
  CHECK_THROWS_WITH(plan("one-launch", 64, 256, true), ContainsText("local memory"));
  f.local_mem_bytes = 48 << 10;  // an NVIDIA GPU's: 16 copies of 3 KiB, exactly
  CHECK(plan("one-launch", 64, 256, true).options == "-DCOPIES=16");
  CHECK(plan("lane-copies", 64, 256, true).options == "-DCOPIES=32");  // 1.5 KiB each
  f.local_mem_bytes = (12 << 10) + 100;
  CHECK(plan("one-launch", 64, 256, true).options == "-DCOPIES=4");
  CHECK(plan("lane-copies", 64, 256, true).options == "-DCOPIES=8");
  // 16-bit counters: a group whose one lane could add 65536 to a counter is refused.
  f.local_mem_bytes = 48 << 10;
  CHECK_NOTHROW(plan("lane-copies", 4096, 256, true));
  CHECK_THROWS_WITH(plan("lane-copies", 8192, 256, true), ContainsText("--chunk") && ContainsText("16-bit"));
  CHECK_THROWS_WITH(plan("lane-copies", 65536, 1, true), ContainsText("could reach"));
  f.local_mem_bytes = 32 << 10;
  // PoCL keeps a group's private arrays on one thread's stack.
  CHECK_THROWS_WITH(plan("private", 64, 2048, false), ContainsText("--wg"));
  CHECK_NOTHROW(plan("private", 64, 1024, false));
  CHECK_NOTHROW(plan("global-partials", 64, 2048, false));
}
