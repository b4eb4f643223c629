// The RGB loader and the generated images; the serial count and its CSV.
#include "tests/catch.hpp"
#include <numeric>
#include <sstream>

#define STBI_WRITE_NO_STDIO  // as in common/machinery/stb_impl.cpp
#include <stb_image_write.h>

#include "common/core/errors.hpp"
#include "histogram/counts.hpp"
#include "histogram/tests/support.hpp"

using namespace conv::histogram;

namespace {

std::string ppm(int w, int h, const std::string& raster) {
  return "P6\n" + std::to_string(w) + " " + std::to_string(h) + "\n255\n" + raster;
}

std::string png(int w, int h, int channels, const std::vector<std::uint8_t>& pixels) {
  std::string out;
  auto sink = [](void* ctx, void* data, int size) {
    static_cast<std::string*>(ctx)->append(static_cast<const char*>(data),
                                           static_cast<std::size_t>(size));
  };
  stbi_write_png_to_func(sink, &out, w, h, channels, pixels.data(), w * channels);
  return out;
}

}  // namespace

TEST_CASE("a PPM loads as the RGB bytes it holds", "[histogram][images]") {
  const std::string raster(
      "\x01\x02\x03\xff\x00\x80\x10\x20\x30\x40\x50\x60\x70\x80\x90\xa0\xb0\xc0", 18);
  const RgbImage image = load_rgb_image(test::write_scratch("six.ppm", ppm(3, 2, raster)));
  CHECK(image.width == 3);
  CHECK(image.height == 2);
  CHECK(std::string(image.rgb.begin(), image.rgb.end()) == raster);
}

TEST_CASE("gray is replicated into R, G and B, and alpha is dropped", "[histogram][images]") {
  const RgbImage gray = load_rgb_image(test::write_scratch("g.png", png(2, 1, 1, {9, 200})));
  CHECK(gray.rgb == std::vector<std::uint8_t>{9, 9, 9, 200, 200, 200});
  const RgbImage rgba = load_rgb_image(test::write_scratch("a.png", png(1, 1, 4, {1, 2, 3, 4})));
  CHECK(rgba.rgb == std::vector<std::uint8_t>{1, 2, 3});
}

TEST_CASE("bad files throw one message naming the file", "[histogram][images]") {
  const std::string truncated = test::write_scratch("short.ppm", ppm(4, 4, std::string(20, 'x')));
  CHECK_THROWS_WITH(load_rgb_image(truncated), ContainsText("short.ppm") && ContainsText("truncated"));
  const std::string garbage = test::write_scratch("bad.png", "\x89PNG\r\n\x1a\n not a png at all");
  CHECK_THROWS_WITH(load_rgb_image(garbage), ContainsText("bad.png"));
  CHECK_THROWS_WITH(load_rgb_image(test::scratch_dir() + "/none.jpg"), ContainsText("none.jpg"));
  const std::string pfm = test::write_scratch("f.pfm", "Pf\n1 1\n-1.0\n\0\0\0\0");
  CHECK_THROWS_WITH(load_rgb_image(pfm), ContainsText("f.pfm") && ContainsText("8-bit"));
}

TEST_CASE("image specs: synthetic, noise and solid", "[histogram][images]") {
  CHECK(load_rgb_spec("synthetic:40x30:5").rgb == load_rgb_spec("synthetic:40x30:5").rgb);
  CHECK(load_rgb_spec("synthetic:40x30:5").rgb != load_rgb_spec("synthetic:40x30:6").rgb);
  CHECK(load_rgb_spec("noise:40x30").rgb == load_rgb_spec("noise:40x30:1").rgb);
  CHECK(load_rgb_spec("solid:2x1:ff0010").rgb == std::vector<std::uint8_t>{255, 0, 16, 255, 0, 16});
  CHECK(load_rgb_spec("solid:1x1").rgb == std::vector<std::uint8_t>{128, 128, 128});
  CHECK_THROWS_AS(load_rgb_spec("solid:2x2:red"), conv::UsageError);
  CHECK_THROWS_AS(load_rgb_spec("synthetic:0x4"), conv::UsageError);
  CHECK_THROWS_AS(load_rgb_spec("noise:4x4:"), conv::UsageError);
  // Every channel of the synthetic image spreads over many levels.
  const Counts c = serial_count(synthetic_rgb(300, 200, 1));
  for (int ch = 0; ch < kChannels; ++ch)
    CHECK(std::count_if(c.begin() + ch * kBins, c.begin() + (ch + 1) * kBins,
                        [](std::uint32_t n) { return n > 0; }) > 100);
}

TEST_CASE("the serial count and its CSV", "[histogram][images]") {
  const RgbImage image = solid_rgb(5, 3, 1, 2, 255);
  const Counts c = serial_count(image);
  CHECK(c[1] == 15);
  CHECK(c[kBins + 2] == 15);
  CHECK(c[2 * kBins + 255] == 15);
  CHECK(std::accumulate(c.begin(), c.end(), 0u) == 45);

  std::istringstream csv(counts_csv(c));
  std::string line;
  std::getline(csv, line);
  CHECK(line == "bin,r,g,b");
  int rows = 0;
  while (std::getline(csv, line)) ++rows;
  CHECK(rows == kBins);
  CHECK_THAT(counts_csv(c), ContainsText("\n255,0,0,15\n") && ContainsText("\n1,15,0,0\n"));
}
