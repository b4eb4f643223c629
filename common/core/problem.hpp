// One convolution's data: an image, a filter, the border, and the Problem a
// launcher is given. Image files and filter specs: common/machinery/.
#pragma once
#include <cstddef>
#include <string>
#include <vector>

namespace conv {

struct Image {
  int width = 0;
  int height = 0;
  std::vector<float> pixels;  // row-major, width * height

  Image() = default;
  Image(int w, int h, float value = 0.0f)
      : width(w), height(h), pixels(static_cast<std::size_t>(w) * h, value) {}
  float& at(int x, int y) { return pixels[static_cast<std::size_t>(y) * width + x]; }
  float at(int x, int y) const { return pixels[static_cast<std::size_t>(y) * width + x]; }
};

struct Filter {  // a square correlation filter, F x F
  int width = 0;               // F
  std::vector<float> weights;  // row-major, F * F
  std::string name;            // the spec it came from, for reports

  float at(int row, int col) const { return weights[static_cast<std::size_t>(row) * width + col]; }
  double sum() const;
};

enum class Border { zero, clamp };
Border parse_border(const std::string& text);  // "zero" | "clamp", else UsageError
std::string border_name(Border border);

// The image grown by the filter's reach (F/2 before, F-1-F/2 after) on each
// side, filled by `border`: zeros, or the nearest edge pixel.
Image pad_image(const Image& image, int filter_width, Border border);

// One convolution to compute: the input already padded by the filter's reach,
// so the output is (padded.width - F + 1) x (padded.height - F + 1).
struct Problem {
  Image padded;
  Filter filter;
  Border border = Border::zero;
  int out_width() const { return padded.width - filter.width + 1; }
  int out_height() const { return padded.height - filter.width + 1; }
};

Problem make_problem(const Image& image, const Filter& filter, Border border);

}  // namespace conv
