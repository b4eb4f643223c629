// The serial results every kernel is checked and timed against.
#pragma once
#include <cmath>
#include <string>
#include <vector>

#include "common/machinery/filter_specs.hpp"
#include "common/machinery/image_files.hpp"

namespace conv {

// The exact answer, accumulated in double over the padded image, with the
// sum of |weight * pixel| per output so an error bound can be stated, and
// (from reference_correlate) the tolerance of each output.
struct Reference {
  int width = 0, height = 0;
  std::vector<double> value;
  std::vector<double> magnitude;
  std::vector<double> tolerance;  // empty: compare by the number of terms
};

// How far a float accumulation of one output's terms may honestly be from
// the exact sum (docs/reliability.md, "what --verify accepts"). Rounding
// errors of a float sum act as a random walk: each addition errs by at most
// u = 2^-24 of its partial sum, so the total stays within a few
// u * sqrt(sum of the squared partial sums); kRandomWalkBound of them is
// 10 standard deviations of the uniform model. Where the errors do not
// cancel (a flat image: every addition rounds the same way), the float sum
// in the reference's own order (every step's kernel sums in that order)
// shows the error directly. The sum of both, plus u * sum |terms| for
// fused multiply-adds, never more than the worst case n * 2u * sum |terms|.
struct SumModel {
  static constexpr double kRandomWalkBound = 6;
  double sum = 0, magnitude = 0, walk = 0;
  float float_sum = 0;
  long long terms = 0;
  void add(float weight, float pixel) {
    const double term = static_cast<double>(weight) * pixel;  // exact in double
    sum += term;
    magnitude += std::fabs(term);
    walk += sum * sum + term * term;
    const float product = weight * pixel;
    float_sum += product;
    ++terms;
  }
  double tolerance() const;
};

Reference reference_correlate(const Image& padded, const Filter& filter);

// "The serial baseline": the plain float loop a C programmer would write
// first, one core, no tricks. Timed for the speedup columns.
Image serial_correlate(const Image& padded, const Filter& filter);

struct Comparison {
  double max_abs_err = 0;  // max |out - ref|
  double max_rel_err = 0;  // max |out - ref| / sum |w * x|, over pixels where that sum is not 0
  // Pixels whose terms are all 0 (exact answer 0) that came out non-zero, and
  // the largest of them: a transform's rounding noise, or a kernel's bug.
  long long zero_sums_nonzero = 0;
  double max_zero_sum_err = 0;
  long long bad_pixels = 0;  // over the tolerance, NaN or infinite
  int worst_x = -1, worst_y = -1;
  bool passed() const { return bad_pixels == 0; }
  std::string describe() const;  // one line for messages
};

// Every pixel within the reference's tolerance (SumModel), or, for a
// Reference without one, compare_with_reference_terms with n = F * F.
Comparison compare_with_reference(const Image& output, const Reference& reference, int filter_width);
// A float sum of n products, in any order, with or without fused
// multiply-add, is within n * FLT_EPSILON * sum|terms| of the exact sum
// (twice the classic worst case); that is the tolerance here. Too wide to
// notice one missing term of a wide filter: for sums of other shapes.
Comparison compare_with_reference_terms(const Image& output, const Reference& reference,
                                        long long terms);
// Every pixel within the same absolute `tolerance` of the exact answer,
// whatever its own terms: a transform's error, which spreads over every
// output (steps 9 and 10).
Comparison compare_with_absolute_tolerance(const Image& output, const Reference& reference, double tolerance);
// sum|K| * max|x|: a bound on the size of every output, the scale a
// transform's absolute error is stated in.
double output_scale(const Filter& filter, const Image& padded);

}  // namespace conv
