#include "coursework/impulse_report.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <utility>
#include <vector>

namespace conv {
namespace {

std::string number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.9g", v);
  return buf;
}

std::string at(int x, int y) { return "(" + std::to_string(x) + ", " + std::to_string(y) + ")"; }

// The weight a window cell (i across, j down from its top-left corner)
// holds in each placement of the filter a wrong index can produce; the
// first is the right one: correlation puts the filter there rotated.
struct Orientation {
  const char* name;
  std::function<float(const Filter&, int i, int j)> weight;
};

const std::vector<Orientation>& orientations() {
  static const std::vector<Orientation> all = {
      {"rotated by 180 degrees, as a correlation puts it",
       [](const Filter& f, int i, int j) { return f.at(f.width - 1 - j, f.width - 1 - i); }},
      {"not rotated (the index of a convolution, not of a correlation)",
       [](const Filter& f, int i, int j) { return f.at(j, i); }},
      {"mirrored left to right (the column index reversed)",
       [](const Filter& f, int i, int j) { return f.at(f.width - 1 - j, i); }},
      {"mirrored top to bottom (the row index reversed)",
       [](const Filter& f, int i, int j) { return f.at(j, f.width - 1 - i); }},
      {"transposed (rows and columns swapped)",
       [](const Filter& f, int i, int j) { return f.at(f.width - 1 - i, f.width - 1 - j); }},
  };
  return all;
}

}  // namespace

std::string impulse_report(const Image& out, const Filter& filter, int px, int py) {
  const int w = filter.width, a = w / 2;
  // Where the window belongs: the output (x, y) reads input rows y .. y+w-1
  // of the padded image, so the impulse reaches outputs x0 .. x0+w-1.
  const int x0 = px + a - (w - 1), y0 = py + a - (w - 1);
  auto expected = [&](int x, int y) {
    const int i = x - x0, j = y - y0;
    const bool inside = i >= 0 && i < w && j >= 0 && j < w;
    return inside ? orientations()[0].weight(filter, i, j) : 0.0f;
  };
  long long wrong = 0;
  std::string first;
  for (int y = 0; y < out.height; ++y)
    for (int x = 0; x < out.width; ++x) {
      const float got = out.at(x, y), want = expected(x, y);
      if (got == want) continue;
      if (wrong++ < 3)
        first += (first.empty() ? "" : "; ") + at(x, y) + " holds " + number(got) + " instead of " + number(want);
    }
  if (wrong == 0) return "";

  std::string text = std::to_string(wrong) + " of " + std::to_string(static_cast<long long>(out.width) * out.height) +
                     " output(s) differ from the filter around a single 1 at input " + at(px, py) + "; ";
  // Every placement of the filter's window, near where it belongs: the
  // first that matches all of its w x w cells exactly is where it landed.
  const int reach = w + 2;
  std::vector<std::pair<int, int>> shifts;  // (dx, dy), the nearest first
  for (int dy = -reach; dy <= reach; ++dy)
    for (int dx = -reach; dx <= reach; ++dx) shifts.emplace_back(dx, dy);
  std::stable_sort(shifts.begin(), shifts.end(), [](const auto& p, const auto& q) {
    return std::abs(p.first) + std::abs(p.second) < std::abs(q.first) + std::abs(q.second);
  });
  // Whether orientation `o`, its window's corner moved by (dx, dy), matches
  // every one of its w x w cells (those off the image must be 0 weights).
  auto fits = [&](const Orientation& o, int dx, int dy) {
    bool any_inside = false;
    for (int j = 0; j < w; ++j)
      for (int i = 0; i < w; ++i) {
        const int x = x0 + dx + i, y = y0 + dy + j;
        const float want = o.weight(filter, i, j);
        const bool inside = x >= 0 && y >= 0 && x < out.width && y < out.height;
        if (inside ? out.at(x, y) != want : want != 0.0f) return false;
        any_inside = any_inside || inside;
      }
    return any_inside;
  };
  std::string landed;
  for (std::size_t o = 0; o < orientations().size() && landed.empty(); ++o)
    for (const auto& [dx, dy] : shifts) {
      if (!fits(orientations()[o], dx, dy)) continue;
      if (o == 0 && dx == 0 && dy == 0)
        landed = "the filter is where it belongs, rotated as it should be, so the wrong outputs are outside it";
      else
        landed = "the filter landed " + std::string(orientations()[o].name) +
                 (dx == 0 && dy == 0 ? ", in its place"
                                     : ", its window's corner at " + at(x0 + dx, y0 + dy) + " instead of " +
                                           at(x0, y0) + " (shifted by " + std::to_string(dx) + " across, " +
                                           std::to_string(dy) + " down)");
      break;
    }
  if (landed.empty()) {
    // Not found whole: say where the largest output is against where the
    // filter's largest weight belongs.
    int bx = -1, by = -1, fx = 0, fy = 0;
    float big = -1, fbig = -1;
    for (int y = 0; y < out.height; ++y)
      for (int x = 0; x < out.width; ++x)
        if (std::isfinite(out.at(x, y)) && std::fabs(out.at(x, y)) > big) big = std::fabs(out.at(x, y)), bx = x, by = y;
    for (int j = 0; j < w; ++j)
      for (int i = 0; i < w; ++i)
        if (std::fabs(orientations()[0].weight(filter, i, j)) > fbig)
          fbig = std::fabs(orientations()[0].weight(filter, i, j)), fx = x0 + i, fy = y0 + j;
    landed = "the filter is not found whole anywhere near its place (shifted, mirrored or transposed); the largest "
             "output, " + number(big) + ", is at " + at(bx, by) + ", where the filter's largest weight belongs at " +
             at(fx, fy);
  }
  return text + landed + ". First differences: " + first;
}

}  // namespace conv
