// Border handling by padding on the host: every kernel then computes a plain
// "valid" correlation and needs nothing beyond one range guard.
#pragma once
#include <string>

#include "common/image.hpp"

namespace conv {

enum class Border { zero, clamp };

Border parse_border(const std::string& text);  // "zero" | "clamp", else UsageError
std::string border_name(Border border);

// The anchor is at F/2 (as OpenCV's filter2D): the padded image is
// (W + F - 1) x (H + F - 1), with F/2 extra columns on the left and top and
// F - 1 - F/2 on the right and bottom. `zero` fills them with 0, `clamp`
// repeats the nearest edge pixel.
Image pad_image(const Image& image, int filter_width, Border border);

}  // namespace conv
