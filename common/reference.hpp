// The serial results every kernel is checked and timed against.
#pragma once
#include <string>
#include <vector>

#include "common/filter.hpp"
#include "common/image.hpp"

namespace conv {

// The exact answer, accumulated in double over the padded image, with the
// sum of |weight * pixel| per output so an error bound can be stated.
struct Reference {
  int width = 0, height = 0;
  std::vector<double> value;
  std::vector<double> magnitude;
};

Reference reference_correlate(const Image& padded, const Filter& filter);

// "The serial baseline": the plain float loop a C programmer would write
// first, one core, no tricks. Timed for the speedup columns.
Image serial_correlate(const Image& padded, const Filter& filter);

struct Comparison {
  double max_abs_err = 0;  // max |out - ref|
  double max_rel_err = 0;  // max |out - ref| / sum |w * x| at that pixel
  long long bad_pixels = 0;  // over the tolerance, NaN or infinite
  int worst_x = -1, worst_y = -1;
  bool passed() const { return bad_pixels == 0; }
  std::string describe() const;  // one line for messages
};

// A float sum of n products, in any order, with or without fused
// multiply-add, is within n * FLT_EPSILON * sum|terms| of the exact sum
// (twice the classic bound); that is the tolerance, with n = F * F.
Comparison compare_with_reference(const Image& output, const Reference& reference, int filter_width);
// The same with the number of terms per output given (F * F * F in 3D).
Comparison compare_with_reference_terms(const Image& output, const Reference& reference,
                                        long long terms);

}  // namespace conv
