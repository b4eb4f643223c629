// The impulse test's diagnosis (coursework/impulse_report.hpp): a wrong
// index is named by where the filter landed, not only counted.
#include "tests/catch.hpp"

#include <random>

#include "coursework/impulse_report.hpp"
#include "tests/support.hpp"

using namespace conv;

namespace {

// The output of a correct correlation of a single 1 at (px, py), with the
// filter's window moved by (dx, dy) and its cells read through `weight`.
template <typename Weight>
Image placed(const Filter& f, int width, int height, int px, int py, int dx, int dy, Weight weight) {
  Image out(width, height, 0.0f);
  const int w = f.width, a = w / 2, x0 = px + a - (w - 1) + dx, y0 = py + a - (w - 1) + dy;
  for (int j = 0; j < w; ++j)
    for (int i = 0; i < w; ++i)
      if (x0 + i >= 0 && y0 + j >= 0 && x0 + i < width && y0 + j < height) out.at(x0 + i, y0 + j) = weight(i, j);
  return out;
}

Filter nonzero_filter(int w, std::mt19937& rng) {
  std::uniform_real_distribution<float> u(0.5f, 1.5f);  // no weight is 0: every placement is distinct
  Filter f;
  f.width = w;
  f.weights.resize(static_cast<std::size_t>(w) * w);
  for (float& x : f.weights) x = u(rng);
  return f;
}

}  // namespace

TEST_CASE("the impulse report names where the filter landed", "[impulse]") {
  std::mt19937 rng(conv::test::run_seed());
  INFO(conv::test::seed_note());
  const int W = 19, H = 22, px = 9, py = 10;
  for (int w : {3, 4, 5}) {
    const Filter f = nonzero_filter(w, rng);
    auto right = [&](int i, int j) { return f.at(w - 1 - j, w - 1 - i); };
    INFO("filter width " << w);
    CHECK(impulse_report(placed(f, W, H, px, py, 0, 0, right), f, px, py).empty());

    const std::string shifted = impulse_report(placed(f, W, H, px, py, 1, 0, right), f, px, py);
    CHECK(shifted.find("rotated by 180 degrees") != std::string::npos);
    CHECK(shifted.find("shifted by 1 across, 0 down") != std::string::npos);
    CHECK(shifted.find("First differences: (") != std::string::npos);

    auto unrotated = [&](int i, int j) { return f.at(j, i); };
    const std::string convolution = impulse_report(placed(f, W, H, px, py, 0, 0, unrotated), f, px, py);
    CHECK(convolution.find("not rotated") != std::string::npos);
    CHECK(convolution.find("in its place") != std::string::npos);

    auto mirrored = [&](int i, int j) { return f.at(w - 1 - j, i); };
    CHECK(impulse_report(placed(f, W, H, px, py, 0, -1, mirrored), f, px, py).find("mirrored left to right") !=
          std::string::npos);

    auto transposed = [&](int i, int j) { return f.at(w - 1 - i, w - 1 - j); };
    CHECK(impulse_report(placed(f, W, H, px, py, 0, 0, transposed), f, px, py).find("transposed") !=
          std::string::npos);

    Image stray = placed(f, W, H, px, py, 0, 0, right);
    stray.at(0, 0) = 2.0f;
    const std::string outside = impulse_report(stray, f, px, py);
    CHECK(outside.find("where it belongs") != std::string::npos);
    CHECK(outside.find("(0, 0) holds 2 instead of 0") != std::string::npos);

    Image scaled = placed(f, W, H, px, py, 0, 0, [&](int i, int j) { return 3.0f * right(i, j); });
    CHECK(impulse_report(scaled, f, px, py).find("not found whole") != std::string::npos);
  }
}
