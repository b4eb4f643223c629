// Unit tests of the harness: filter specs and files, images in and out,
// padding, the reference, reports, device selection and launch checks.
#include "tests/catch.hpp"

#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <random>
#include <sstream>
#include <thread>

#include "common/machinery/device_choice.hpp"
#include "common/machinery/guard.hpp"
#include "common/machinery/parse.hpp"
#include "common/machinery/platform/process.hpp"
#include "common/machinery/program_cache.hpp"
#include "common/machinery/reference.hpp"
#include "common/machinery/registry.hpp"
#include "common/machinery/report.hpp"
#include "common/machinery/roofline.hpp"
#include "common/machinery/settings.hpp"
#include "tests/image_encoders.hpp"
#include "tests/files.hpp"
#include "tests/support.hpp"

using namespace conv;

// ---- filters ------------------------------------------------------------------

TEST_CASE("named filters have the documented shape and weights", "[filter]") {
  const Filter m = parse_filter_spec("motion45");
  CHECK(m.width == 7);
  CHECK(m.at(0, 5) == Approx(0.0145f));
  CHECK(m.at(3, 3) == Approx(0.1283f));  // the centre of the 45-degree line
  CHECK(m.at(3, 2) == Approx(0.0376f));
  CHECK(m.at(6, 1) == Approx(0.0145f));
  // All seven rows: the blur keeps brightness (the source's listing lost one).
  CHECK(m.sum() == Approx(1.0003).epsilon(1e-4));

  const Filter box = parse_filter_spec("box:4");
  CHECK(box.width == 4);
  CHECK(box.sum() == Approx(1.0));
  for (float w : box.weights) CHECK(w == Approx(1.0f / 16));

  const Filter g = parse_filter_spec("gaussian:5");
  CHECK(g.width == 5);
  CHECK(g.sum() == Approx(1.0));
  CHECK(g.at(2, 2) > g.at(2, 1));
  CHECK(g.at(0, 1) == Approx(g.at(1, 0)));
  CHECK(g.at(4, 3) == Approx(g.at(0, 1)));
  const Filter g2 = parse_filter_spec("gaussian:5:3.5");
  CHECK(g2.at(2, 2) < g.at(2, 2));  // wider sigma, flatter peak

  CHECK(parse_filter_spec("sobel-x").weights == std::vector<float>{-1, 0, 1, -2, 0, 2, -1, 0, 1});
  CHECK(parse_filter_spec("sobel-y").weights == std::vector<float>{-1, -2, -1, 0, 0, 0, 1, 2, 1});
  CHECK(parse_filter_spec("sharpen").sum() == Approx(1.0));
  CHECK(parse_filter_spec("laplacian").sum() == Approx(0.0));

  const Filter r1 = parse_filter_spec("random:6:42"), r2 = parse_filter_spec("random:6:42");
  const Filter r3 = parse_filter_spec("random:6:43");
  CHECK(r1.width == 6);
  CHECK(r1.weights == r2.weights);
  CHECK(r1.weights != r3.weights);
  for (float w : r1.weights) CHECK((w >= -1 && w <= 1));
}

TEST_CASE("bad filter specs are usage errors that name the problem", "[filter]") {
  CHECK_THROWS_AS(parse_filter_spec("blur"), UsageError);
  CHECK_THROWS_WITH(parse_filter_spec("blur"), ContainsText("unknown filter 'blur'"));
  CHECK_THROWS_AS(parse_filter_spec("box:0"), UsageError);
  CHECK_THROWS_AS(parse_filter_spec("box:-3"), UsageError);
  CHECK_THROWS_AS(parse_filter_spec("box:abc"), UsageError);
  CHECK_THROWS_AS(parse_filter_spec("box:"), UsageError);
  CHECK_THROWS_WITH(parse_filter_spec("box:1000"), ContainsText("limit 127"));
  CHECK_THROWS_AS(parse_filter_spec("gaussian:5:-1"), UsageError);
  CHECK_THROWS_AS(parse_filter_spec("gaussian:5:nan"), UsageError);
  CHECK_THROWS_AS(parse_filter_spec("motion45:3"), UsageError);
  CHECK_THROWS_AS(parse_filter_spec("random:3:x"), UsageError);
  CHECK_THROWS_AS(parse_filter_spec("file:"), UsageError);
}

TEST_CASE("filter files: numbers, comments, width inferred", "[filter]") {
  const Filter f = parse_filter_text("# a 3x3 filter\n1 2 3  # first row\n4\t5 6\n7 8 9e0\n", "t");
  CHECK(f.width == 3);
  CHECK(f.weights == std::vector<float>{1, 2, 3, 4, 5, 6, 7, 8, 9});
  CHECK(parse_filter_text("-0.5", "t").width == 1);
  CHECK(parse_filter_text("1 2 3 4", "t").width == 2);

  const std::string path = conv::test::write_scratch("f.txt", "0 1 0\n1 -4 1\n0 1 0\n");
  const Filter g = parse_filter_spec("file:" + path);
  CHECK(g.width == 3);
  CHECK(g.at(1, 1) == -4);
}

TEST_CASE("malformed filter files are errors naming the file and line", "[filter]") {
  CHECK_THROWS_WITH(parse_filter_text("1 2 3", "bad.txt"), ContainsText("bad.txt") && ContainsText("square"));
  CHECK_THROWS_WITH(parse_filter_text("1 2\n3 x", "bad.txt"), ContainsText("line 2") && ContainsText("'x'"));
  CHECK_THROWS_WITH(parse_filter_text("1 2 3 nan", "bad.txt"), ContainsText("finite"));
  CHECK_THROWS_WITH(parse_filter_text("1 2 3 inf", "bad.txt"), ContainsText("finite"));
  CHECK_THROWS_WITH(parse_filter_text("1 2 3 1e39", "bad.txt"), ContainsText("finite"));
  CHECK_THROWS_WITH(parse_filter_text("1,2,3,4", "bad.txt"), ContainsText("not a number"));
  CHECK_THROWS_WITH(parse_filter_text("", "bad.txt"), ContainsText("no filter values"));
  CHECK_THROWS_WITH(parse_filter_text("# only a comment\n", "bad.txt"), ContainsText("no filter values"));
  std::string huge;
  for (int i = 0; i < 128 * 128; ++i) huge += "1 ";
  CHECK_THROWS_WITH(parse_filter_text(huge, "big.txt"), ContainsText("more than 127x127"));
  CHECK_THROWS_AS(parse_filter_spec("file:/no/such/filter.txt"), Error);
  CHECK_THROWS_WITH(parse_filter_spec("file:/no/such/filter.txt"), ContainsText("/no/such/filter.txt"));
  CHECK_THROWS_WITH(parse_filter_spec("file:" + conv::test::scratch_dir()), ContainsText("directory"));
}

// ---- parsing ---------------------------------------------------------------------

TEST_CASE("sizes must be positive WxH", "[parse]") {
  CHECK(parse_size("17x33", "--wg") == std::pair<int, int>{17, 33});
  CHECK_THROWS_AS(parse_size("0x8", "--wg"), UsageError);
  CHECK_THROWS_AS(parse_size("-1x8", "--wg"), UsageError);
  CHECK_THROWS_AS(parse_size("8", "--wg"), UsageError);
  CHECK_THROWS_AS(parse_size("8x", "--wg"), UsageError);
  CHECK_THROWS_AS(parse_size("axb", "--wg"), UsageError);
  CHECK_THROWS_AS(parse_size("99999999999x2", "--wg"), UsageError);
  CHECK_THROWS_AS(load_image_spec("synthetic:0x5"), UsageError);
  CHECK_THROWS_AS(load_image_spec("synthetic:-4x5"), UsageError);
  CHECK_THROWS_AS(load_image_spec("synthetic:65537x2"), UsageError);
  CHECK_THROWS_AS(load_image_spec("synthetic:40000x40000"), UsageError);
}

// ---- images -----------------------------------------------------------------------

TEST_CASE("synthetic images are deterministic, bounded and not flat", "[image]") {
  const Image a = synthetic_image(97, 61, 7), b = synthetic_image(97, 61, 7);
  const Image c = synthetic_image(97, 61, 8);
  CHECK(a.pixels == b.pixels);
  CHECK(a.pixels != c.pixels);
  double mean = 0, var = 0;
  for (float v : a.pixels) {
    CHECK((v >= 0 && v <= 1));
    mean += v;
  }
  mean /= a.pixels.size();
  for (float v : a.pixels) var += (v - mean) * (v - mean);
  CHECK(std::sqrt(var / a.pixels.size()) > 0.05);
  const Image s = load_image_spec("synthetic:31x7:3");
  CHECK(s.width == 31);
  CHECK(s.height == 7);
  CHECK(s.pixels == synthetic_image(31, 7, 3).pixels);
}

TEST_CASE("PFM round trip is exact and uses the standard layout", "[image]") {
  std::mt19937 rng(conv::test::run_seed());
  INFO(conv::test::seed_note());
  Image img = conv::test::random_image(5, 3, rng);
  img.at(0, 0) = -1234.5f;
  img.at(4, 2) = 1e-30f;
  const auto bytes = encode_pfm(img);
  const std::string header = "Pf\n5 3\n-1.0\n";
  REQUIRE(bytes.size() == header.size() + 5 * 3 * 4);
  CHECK(std::string(bytes.begin(), bytes.begin() + header.size()) == header);
  // The first stored row is the image's bottom row, little-endian.
  float first;
  std::memcpy(&first, bytes.data() + header.size(), 4);
  CHECK(first == img.at(0, 2));
  CHECK(decode_pfm(bytes, "x").pixels == img.pixels);

  const std::string path = conv::test::scratch_dir() + "/round.pfm";
  save_image(path, img);
  const Image back = load_image(path);
  CHECK(back.width == 5);
  CHECK(back.height == 3);
  CHECK(back.pixels == img.pixels);
}

TEST_CASE("PFM: big-endian files load, and bad ones are refused", "[image]") {
  // (Color PFM: tests/reliability/image_readers_exact.cpp.)
  // Big-endian 1x2 gray: bottom row first.
  std::vector<std::uint8_t> be = {'P', 'f', '\n', '1', ' ', '2', '\n', '1', '.', '0', '\n'};
  for (float v : {0.25f, 0.75f}) {
    std::uint32_t u;
    std::memcpy(&u, &v, 4);
    for (int k = 3; k >= 0; --k) be.push_back(static_cast<std::uint8_t>(u >> (8 * k)));
  }
  const Image img = decode_pfm(be, "be.pfm");
  CHECK(img.at(0, 0) == 0.75f);
  CHECK(img.at(0, 1) == 0.25f);

  auto truncated = encode_pfm(Image(4, 4, 0.5f));
  truncated.resize(truncated.size() - 3);
  CHECK_THROWS_WITH(decode_pfm(truncated, "t.pfm"), ContainsText("t.pfm") && ContainsText("truncated"));
  auto nan = encode_pfm(Image(2, 2, NAN));
  CHECK_THROWS_WITH(decode_pfm(nan, "n.pfm"), ContainsText("NaN"));
  const std::string huge = "Pf\n100000 100000\n-1.0\n";
  CHECK_THROWS_WITH(decode_pfm({huge.begin(), huge.end()}, "h.pfm"), ContainsText("over the limit"));
  const std::string zero = "Pf\n0 5\n-1.0\n";
  CHECK_THROWS_WITH(decode_pfm({zero.begin(), zero.end()}, "z.pfm"), ContainsText("no pixels"));
  const std::string junk = "Pf\nab cd\n-1.0\n";
  CHECK_THROWS_WITH(decode_pfm({junk.begin(), junk.end()}, "j.pfm"), ContainsText("malformed"));
}

TEST_CASE("images load from PNG, BMP, TGA, JPEG, PGM, PPM as gray v/255", "[image]") {
  std::mt19937 rng(conv::test::run_seed());
  INFO(conv::test::seed_note());
  const int w = 13, h = 7;
  std::vector<std::uint8_t> gray(w * h), rgb(w * h * 3);
  for (auto& v : gray) v = static_cast<std::uint8_t>(rng() % 256);
  for (auto& v : rgb) v = static_cast<std::uint8_t>(rng() % 256);

  for (std::string format : {"png", "bmp", "tga", "pgm"}) {
    INFO(format);
    const std::string path =
        conv::test::write_scratch("g." + format, conv::test::encode(format, w, h, 1, gray));
    const Image img = load_image(path);
    REQUIRE(img.width == w);
    REQUIRE(img.height == h);
    for (int i = 0; i < w * h; ++i) CHECK(img.pixels[i] == gray[i] / 255.0f);
  }
  for (std::string format : {"png", "ppm"}) {
    INFO(format);
    const std::string path =
        conv::test::write_scratch("c." + format, conv::test::encode(format, w, h, 3, rgb));
    const Image img = load_image(path);
    for (int i = 0; i < w * h; ++i) {
      const float expected =
          0.299f * rgb[3 * i] / 255.0f + 0.587f * rgb[3 * i + 1] / 255.0f + 0.114f * rgb[3 * i + 2] / 255.0f;
      CHECK(img.pixels[i] == Approx(expected).margin(1e-6));
    }
  }
  // JPEG is lossy: a flat mid-gray must come back close to 128/255.
  const std::string jpg = conv::test::write_scratch(
      "flat.jpg", conv::test::encode("jpg", 16, 16, 1, std::vector<std::uint8_t>(256, 128)));
  const Image j = load_image(jpg);
  for (float v : j.pixels) CHECK(v == Approx(128 / 255.0f).margin(2 / 255.0f));
}

TEST_CASE("PNG output is clamped 8-bit gray", "[image]") {
  Image img(3, 1);
  img.pixels = {-0.5f, 0.5f, 7.0f};
  const std::string path = conv::test::scratch_dir() + "/clamp.png";
  save_image(path, img);
  const Image back = load_image(path);
  CHECK(back.pixels[0] == 0.0f);
  CHECK(back.pixels[1] == 128 / 255.0f);
  CHECK(back.pixels[2] == 1.0f);
}

TEST_CASE("missing, empty, corrupt, truncated and absurd images are errors", "[image][errors]") {
  using conv::test::write_scratch;
  CHECK_THROWS_WITH(load_image("/no/such/image.png"), ContainsText("/no/such/image.png") && ContainsText("cannot open"));
  CHECK_THROWS_WITH(load_image(write_scratch("empty.png", std::string())), ContainsText("empty"));
  CHECK_THROWS_WITH(load_image(conv::test::scratch_dir()), ContainsText("directory"));
  CHECK_THROWS_WITH(load_image(write_scratch("junk.png", std::string("this is not an image at all"))),
                    ContainsText("junk.png") && ContainsText("not an image in a supported format"));

  std::vector<std::uint8_t> pixels(64 * 64);
  for (std::size_t i = 0; i < pixels.size(); ++i) pixels[i] = static_cast<std::uint8_t>(i * 7);
  for (std::string format : {"png", "bmp", "jpg", "pgm"}) {
    INFO(format);
    auto bytes = conv::test::encode(format, 64, 64, 1, pixels);
    bytes.resize(bytes.size() / 2);
    const std::string path = write_scratch("half." + format, bytes);
    CHECK_THROWS_AS(load_image(path), Error);
    CHECK_THROWS_WITH(load_image(path), ContainsText("half." + format));
  }
  // Headers that promise absurd sizes: refused before any allocation.
  CHECK_THROWS_WITH(load_image(write_scratch("huge.pgm", std::string("P5\n60000 60000\n255\n") + "abc")),
                    ContainsText("huge.pgm"));
  auto png = conv::test::encode("png", 1, 1, 1, {0});
  // IHDR width and height are bytes 16..23: make it 50000 x 50000.
  for (int k : {16, 20}) {
    png[k] = 0; png[k + 1] = 0; png[k + 2] = 0xC3; png[k + 3] = 0x50;
  }
  CHECK_THROWS_WITH(load_image(write_scratch("huge.png", png)), ContainsText("huge.png"));
}

TEST_CASE("outputs: unknown extensions and missing folders are refused up front", "[image][errors]") {
  CHECK_THROWS_AS(check_output_path("out.txt"), UsageError);
  CHECK_THROWS_WITH(check_output_path("/no/such/folder/out.png"), ContainsText("does not exist"));
  CHECK_NOTHROW(check_output_path(conv::test::scratch_dir() + "/ok.PFM"));
  CHECK_THROWS_AS(save_image("/no/such/folder/out.pfm", Image(1, 1)), Error);
  CHECK_FALSE(conv::test::file_exists("/no/such/folder/out.pfm"));
}

// ---- padding and the reference ------------------------------------------------------

TEST_CASE("padding puts F/2 before and F-1-F/2 after, zero or clamped", "[border]") {
  Image img(3, 2);
  img.pixels = {1, 2, 3, 4, 5, 6};
  const Image z = pad_image(img, 4, Border::zero);  // 2 before, 1 after
  REQUIRE(z.width == 6);
  REQUIRE(z.height == 5);
  CHECK(z.at(2, 2) == 1);
  CHECK(z.at(4, 3) == 6);
  CHECK(z.at(0, 0) == 0);
  CHECK(z.at(5, 4) == 0);
  CHECK(z.at(1, 2) == 0);
  const Image c = pad_image(img, 4, Border::clamp);
  CHECK(c.at(0, 0) == 1);
  CHECK(c.at(5, 0) == 3);
  CHECK(c.at(0, 4) == 4);
  CHECK(c.at(5, 4) == 6);
  CHECK(c.at(3, 2) == 2);
  CHECK(pad_image(img, 1, Border::clamp).pixels == img.pixels);
  CHECK_THROWS_AS(parse_border("mirror"), UsageError);
}

// Correlation written the other way round: straight from the definition,
// border by border, with no padded image. The reference must agree.
static double direct(const Image& img, const Filter& f, Border b, int x, int y) {
  const int a = f.width / 2;
  double sum = 0;
  for (int r = 0; r < f.width; ++r)
    for (int c = 0; c < f.width; ++c) {
      int sx = x + c - a, sy = y + r - a;
      if (b == Border::clamp) {
        sx = std::clamp(sx, 0, img.width - 1);
        sy = std::clamp(sy, 0, img.height - 1);
      } else if (sx < 0 || sy < 0 || sx >= img.width || sy >= img.height) {
        continue;
      }
      sum += static_cast<double>(f.at(r, c)) * img.at(sx, sy);
    }
  return sum;
}

TEST_CASE("the reference equals correlation from its definition", "[reference]") {
  std::mt19937 rng(conv::test::run_seed());
  INFO(conv::test::seed_note());
  for (int width : {1, 2, 3, 4, 7}) {
    for (Border b : {Border::zero, Border::clamp}) {
      const Image img = conv::test::random_image(9, 6, rng);
      const Filter f = conv::test::random_filter(width, rng);
      const Reference ref = reference_correlate(pad_image(img, width, b), f);
      REQUIRE(ref.width == 9);
      REQUIRE(ref.height == 6);
      for (int y = 0; y < 6; ++y)
        for (int x = 0; x < 9; ++x)
          CHECK(ref.value[y * 9 + x] == Approx(direct(img, f, b, x, y)).margin(1e-12));
      const Image serial = serial_correlate(pad_image(img, width, b), f);
      CHECK(compare_with_reference(serial, ref, width).passed());
    }
  }
}

TEST_CASE("the comparison catches NaN, wrong values and wrong sizes", "[reference]") {
  const Filter f = parse_filter_spec("box:3");
  const Image img = synthetic_image(8, 8, 1);
  const Reference ref = reference_correlate(pad_image(img, 3, Border::zero), f);
  Image out = serial_correlate(pad_image(img, 3, Border::zero), f);
  CHECK(compare_with_reference(out, ref, 3).passed());
  out.at(3, 4) += 1e-3f;
  const Comparison wrong = compare_with_reference(out, ref, 3);
  CHECK_FALSE(wrong.passed());
  CHECK(wrong.worst_x == 3);
  CHECK(wrong.worst_y == 4);
  out.at(3, 4) = NAN;
  CHECK(compare_with_reference(out, ref, 3).bad_pixels == 1);
  CHECK_THROWS_AS(compare_with_reference(Image(7, 8), ref, 3), Error);
}

TEST_CASE("an output whose terms are all 0 is counted apart, not as an infinite relative error", "[reference]") {
  const Filter f = parse_filter_spec("box:3");
  Image img(9, 9, 0.0f);
  img.at(1, 1) = 1.0f;  // only the outputs around (1, 1) have a term that is not 0
  const Reference ref = reference_correlate(pad_image(img, 3, Border::zero), f);
  Image out = serial_correlate(pad_image(img, 3, Border::zero), f);
  out.at(1, 1) += 1e-7f;  // inside the impulse's support: a relative error
  out.at(7, 7) = 1e-9f;   // every term 0: a transform's rounding noise
  const Comparison c = compare_with_reference_terms(out, ref, 1000);
  CHECK(std::isfinite(c.max_rel_err));
  CHECK(c.max_rel_err > 0);
  CHECK(c.zero_sums_nonzero == 1);
  CHECK(c.max_zero_sum_err == Approx(1e-9).epsilon(1e-3));
  CHECK(c.describe().find("whose terms are all 0") != std::string::npos);
  CHECK(c.describe().find("inf") == std::string::npos);
}

// ---- reports ---------------------------------------------------------------------------

TEST_CASE("CSV has the shared columns, one header row, escaped fields", "[report]") {
  const auto& cols = csv_columns();
  const std::vector<std::string> required = {
      "device", "driver", "step", "variant", "width", "height", "filter", "filter_width", "wg",
      "reps", "median_ms", "min_ms", "gflops", "gbps", "max_abs_err"};
  std::size_t last = 0;
  for (const auto& name : required) {
    auto it = std::find(cols.begin(), cols.end(), name);
    REQUIRE(it != cols.end());
    const std::size_t at = static_cast<std::size_t>(it - cols.begin());
    CHECK(at >= last);  // in the documented order
    last = at;
  }
  CHECK(csv_escape("a,b") == "\"a,b\"");
  CHECK(csv_escape("say \"hi\"") == "\"say \"\"hi\"\"\"");
  Row row;
  row.device = "GPU, big";
  row.width = 4;
  row.height = 2;
  row.filter_width = 3;
  Stats s;
  s.median_ms = 2.0;
  s.min_ms = 1.0;
  s.reps = 5;
  fill_metrics(row, s, 6 * 4);
  CHECK(row.gflops == Approx(2.0 * 9 * 8 / 2e6));
  CHECK(row.gbps == Approx(4.0 * (24 + 8) / 2e6));
  std::ostringstream out;
  write_csv_row(out, row);
  CHECK_THAT(out.str(), Catch::Matchers::StartsWith("\"GPU, big\","));
  const std::string line = out.str();
  // One comma between each pair of columns, plus the one quoted in the device name.
  CHECK(std::count(line.begin(), line.end(), ',') == static_cast<long>(cols.size()));
}

TEST_CASE("the roofline share picks the binding limit", "[report]") {
  DeviceLimits limits{100.0, 1000.0};  // GB/s, GFLOP/s
  // 1e9 bytes take 10 ms at 100 GB/s; 1e9 flops take 1 ms: copy-bound.
  auto share = roofline_share(limits, 1e9, 1e9, 20.0);
  CHECK(share.limit == "copy");
  CHECK(share.percent == Approx(50.0));
  share = roofline_share(limits, 1e11, 1e9, 200.0);
  CHECK(share.limit == "fma");
  CHECK(share.percent == Approx(50.0));
}

// ---- devices and launches -------------------------------------------------------------

TEST_CASE("device choices out of range or unknown are clear errors", "[device][errors]") {
  CHECK_THROWS_WITH(choose_device({"99", "", "all"}), ContainsText("platform index 99 is out of range"));
  CHECK_THROWS_WITH(choose_device({"", "99", "all"}), ContainsText("device index 99 is out of range"));
  CHECK_THROWS_WITH(choose_device({"no-such-platform", "", "all"}), ContainsText("no-such-platform"));
  CHECK_THROWS_WITH(choose_device({"", "no-such-device", "all"}), ContainsText("no-such-device"));
  CHECK_THROWS_AS(choose_device({"", "", "fpga"}), UsageError);
  CHECK_NOTHROW(choose_device({"0", "0", "all"}));
}

TEST_CASE("a work-group over the device's limit is refused with the limit named", "[device][errors]") {
  auto& device = conv::test::device();
  const Problem problem = make_problem(synthetic_image(40, 40), parse_filter_spec("box:3"), Border::zero);
  const int too_many = static_cast<int>(device.facts().max_work_group) + 1;
  for (auto& step : all_steps()) {
    INFO(step->name());
    RunOptions options;
    options.wg_x = too_many;
    options.wg_y = 1;
    CHECK_THROWS_WITH(run_step(*step, device, problem, options, 0), ContainsText("limit"));
    options.wg_x = 64;
    options.wg_y = 64 * 64;
    CHECK_THROWS_WITH(run_step(*step, device, problem, options, 0), ContainsText("limit"));
  }
}

TEST_CASE("a kernel that fails to build reports the compiler's log", "[device][errors]") {
  auto& device = conv::test::device();
  const Problem problem = make_problem(synthetic_image(8, 8), parse_filter_spec("box:3"), Border::zero);
  for (auto& step : all_steps()) {
    RunOptions options;
    options.kernel_source = "__kernel void convolve(__global float* out) { out[0] = undeclared_thing; }\n";
    options.kernel_label = "broken.cl";
    try {
      run_step(*step, device, problem, options, 0);
      FAIL("the broken kernel built");
    } catch (const BuildError& e) {
      const std::string what = e.what();
      CHECK_THAT(what, ContainsText("broken.cl") && ContainsText("build log"));
      CHECK_THAT(what, ContainsText("undeclared_thing"));  // the log itself reached us
    }
  }
}

TEST_CASE("a buffer larger than the device allows is refused with the limit named", "[device][errors]") {
  auto& device = conv::test::device();
  const std::size_t limit = device.facts().max_alloc_bytes;
  CHECK_THROWS_WITH(check_buffer_size(device, limit + 1, "the test image"),
                    ContainsText("the test image") && ContainsText(std::to_string(limit)));
  CHECK_NOTHROW(check_buffer_size(device, 1024, "small"));
}

TEST_CASE("a filter over the constant-memory limit is refused with both numbers", "[device][errors]") {
  auto& device = conv::test::device();
  const std::size_t limit = device.facts().constant_mem_bytes;
  Filter big;
  big.width = static_cast<int>(std::sqrt(static_cast<double>(limit / sizeof(float)))) + 1;
  big.weights.assign(static_cast<std::size_t>(big.width) * big.width, 0.0f);
  const std::string bytes = std::to_string(big.weights.size() * sizeof(float));
  CHECK_THROWS_WITH(check_constant_filter(device, big),
                    ContainsText(bytes) && ContainsText(std::to_string(limit)) && ContainsText("constant"));
  CHECK_NOTHROW(check_constant_filter(device, parse_filter_spec("box:31")));
}

TEST_CASE("local memory over the limit is refused with both numbers", "[device][errors]") {
  auto& device = conv::test::device();
  const std::size_t limit = device.facts().local_mem_bytes;
  cl::Program program = device.program("__kernel void k(__local float* t) { t[0] = 1.0f; }", "", "k.cl");
  cl::Kernel kernel = make_kernel(program, "k", "k.cl");
  CHECK_THROWS_WITH(check_local_memory(device, kernel, limit + 4, "a test tile"),
                    ContainsText("a test tile") && ContainsText(std::to_string(limit + 4)) &&
                        ContainsText(std::to_string(limit)));
  CHECK_NOTHROW(check_local_memory(device, kernel, 1024, "a small tile"));
  CHECK_THROWS_WITH(make_kernel(program, "convolve", "k.cl"), ContainsText("no kernel named 'convolve'"));
}

// PoCL's threads are pinned to cores (POCL_AFFINITY=1) before the first
// OpenCL call, unless the environment already chose.
TEST_CASE("enumerating the devices pins PoCL's threads unless the environment says otherwise", "[device]") {
  const char* before = std::getenv("POCL_AFFINITY");
  const std::string saved = before ? before : "";
  ::setenv("POCL_AFFINITY", "0", 1);
  enumerate_devices();
  CHECK(std::string(std::getenv("POCL_AFFINITY")) == "0");
  ::unsetenv("POCL_AFFINITY");
  enumerate_devices();
  REQUIRE(std::getenv("POCL_AFFINITY") != nullptr);
  CHECK(std::string(std::getenv("POCL_AFFINITY")) == "1");
  if (before) ::setenv("POCL_AFFINITY", saved.c_str(), 1);
}

// ---- child processes (common/machinery/platform/process.hpp) --------------------

namespace {

// Whether process `pid` has ended: gone, or a zombie its new parent has not
// reaped yet.
bool process_ended(long pid) {
#ifdef __linux__
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string text;
  if (!std::getline(stat, text)) return true;
  const auto paren = text.rfind(')');
  return paren != std::string::npos && text.size() > paren + 2 && text[paren + 2] == 'Z';
#else
  return ::kill(static_cast<pid_t>(pid), 0) != 0;
#endif
}

}  // namespace

TEST_CASE("the child-process runner: exit status, signals, time limits and output", "[process]") {
  const std::string dir = conv::test::scratch_dir();
  SECTION("a function child that exits 3") {
    ChildSpec spec;
    spec.body = [] { return 3; };
    const ChildResult r = run_child(spec);
    CHECK(r.status == 3);
    CHECK(r.signal == 0);
    CHECK_FALSE(r.timed_out);
  }
  if (!child_processes_available()) {
    WARN("SKIPPED: no child processes here: the sections that need them are not run");
    return;
  }
  SECTION("a function child killed by a signal, its stderr held back") {
    ChildSpec spec;
    spec.hold_err = true;
    spec.body = [] {
      write_stderr("its last words\n");
      std::raise(SIGKILL);
      return 0;
    };
    const ChildResult r = run_child(spec);
    CHECK(r.status == -1);
    CHECK(r.signal == SIGKILL);
    CHECK(r.err == "its last words\n");
    CHECK_FALSE(r.err_passed_on);
    CHECK(signal_text(SIGSEGV).rfind("SIGSEGV (segmentation fault", 0) == 0);
    CHECK(signal_text(SIGKILL).rfind("SIGKILL (", 0) == 0);
  }
  SECTION("a program killed by a signal") {
    ChildSpec spec;
    spec.argv = {"/bin/sh", "-c", "kill -TERM $$; sleep 10"};
    spec.timeout_s = 30;
    const ChildResult r = run_child(spec);
    CHECK(r.signal == SIGTERM);
    CHECK(signal_from_outside(r.signal));
  }
  SECTION("a program past its time limit is killed with its process group") {
    ChildSpec spec;
    const std::string pid_file = dir + "/runner-pid";
    spec.argv = {"/bin/sh", "-c", "sleep 30 & echo $! > " + pid_file + "; sleep 30"};
    spec.timeout_s = 0.5;
    const auto start = std::chrono::steady_clock::now();
    const ChildResult r = run_child(spec);
    CHECK(r.timed_out);
    CHECK(r.status == -1);
    CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(10));
    long left = 0;
    REQUIRE((std::ifstream(pid_file) >> left));
    // The sleep the shell left in the background went with the group.
    bool ended = false;
    for (int i = 0; i < 100 && !(ended = process_ended(left)); ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    CHECK(ended);
  }
  SECTION("output files, the environment and the exit status of a program") {
    ChildSpec spec;
    spec.argv = {"/bin/sh", "-c", "echo \"out $CLCONV_RUNNER_TEST\"; echo err >&2; exit 4"};
    spec.env = {{"CLCONV_RUNNER_TEST", "set"}};
    spec.out_path = dir + "/runner.out";
    spec.err_path = dir + "/runner.err";
    const ChildResult r = run_child(spec);
    CHECK(r.status == 4);
    CHECK(r.out == "out set\n");
    CHECK(r.err == "err\n");
  }
  SECTION("a program that does not exist") {
    ChildSpec spec;
    spec.argv = {dir + "/no-such-program"};
    spec.out_path = dir + "/runner.out";
    spec.err_path = dir + "/runner.err";
    std::string error;
    try {
      run_child(spec);
    } catch (const std::exception& e) {
      error = e.what();
    }
    CHECK(error == spec.argv[0] + ": cannot run it");
  }
  SECTION("done_early and a cap end a program, and say which") {
    ChildSpec spec;
    spec.argv = {"/bin/sh", "-c", "sleep 30"};
    spec.timeout_s = 30;
    int polls = 0;
    spec.done_early = [&] { return ++polls > 3; };
    ChildResult r = run_child(spec);
    CHECK(r.ended_early);
    CHECK_FALSE(r.timed_out);
    spec.done_early = nullptr;
    spec.over_cap = [](ProcessId) { return std::string("used too much"); };
    r = run_child(spec);
    CHECK(r.over_cap == "used too much");
    CHECK(r.status == -1);
  }
}
