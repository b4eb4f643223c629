// What went wrong with an impulse. For a step whose sums are exact, the
// output around a single 1 in a field of 0s is the filter rotated by 180
// degrees (a correlation), bit for bit. When it is not, a count of wrong
// outputs says little; this says where the filter landed (shifted, not
// rotated, mirrored, transposed, or nowhere) and names the first wrong
// positions. The conformance suite and the grader print the same text.
#pragma once
#include <string>

#include "common/core/problem.hpp"  // Image, Filter

namespace conv {

// "" when `out` (one plane of out_width x out_height) is exactly the filter
// around the impulse at input (px, py) and 0 elsewhere; else one paragraph.
std::string impulse_report(const Image& out, const Filter& filter, int px, int py);

}  // namespace conv
