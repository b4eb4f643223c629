#include "common/core/problem.hpp"

#include <algorithm>
#include <numeric>

#include "common/core/errors.hpp"

namespace conv {

double Filter::sum() const { return std::accumulate(weights.begin(), weights.end(), 0.0); }

Border parse_border(const std::string& text) {
  if (text == "zero") return Border::zero;
  if (text == "clamp") return Border::clamp;
  throw UsageError("--border must be zero or clamp, not '" + text + "'");
}

std::string border_name(Border border) { return border == Border::zero ? "zero" : "clamp"; }

Image pad_image(const Image& image, int filter_width, Border border) {
  const int before = filter_width / 2;
  Image padded(image.width + filter_width - 1, image.height + filter_width - 1);
  for (int y = 0; y < padded.height; ++y) {
    const int sy = y - before;
    for (int x = 0; x < padded.width; ++x) {
      const int sx = x - before;
      if (border == Border::clamp) {
        padded.at(x, y) = image.at(std::clamp(sx, 0, image.width - 1),
                                   std::clamp(sy, 0, image.height - 1));
      } else {
        const bool inside = sx >= 0 && sx < image.width && sy >= 0 && sy < image.height;
        padded.at(x, y) = inside ? image.at(sx, sy) : 0.0f;
      }
    }
  }
  return padded;
}

Problem make_problem(const Image& image, const Filter& filter, Border border) {
  return Problem{pad_image(image, filter.width, border), filter, border};
}

}  // namespace conv
