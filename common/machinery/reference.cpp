#include "common/machinery/reference.hpp"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <sstream>

#include "common/core/errors.hpp"
#include "common/core/launch.hpp"
#include "common/core/step.hpp"

namespace conv {

Reference reference_correlate(const Image& padded, const Filter& filter) {
  const int F = filter.width;
  Reference ref;
  ref.width = padded.width - F + 1;
  ref.height = padded.height - F + 1;
  if (ref.width <= 0 || ref.height <= 0) throw Error("reference: padded image smaller than filter");
  const std::size_t n = static_cast<std::size_t>(ref.width) * ref.height;
  ref.value.assign(n, 0.0);
  ref.magnitude.assign(n, 0.0);
  ref.tolerance.assign(n, 0.0);
  for (int y = 0; y < ref.height; ++y)
    for (int x = 0; x < ref.width; ++x) {
      SumModel model;
      for (int r = 0; r < F; ++r)
        for (int c = 0; c < F; ++c) model.add(filter.at(r, c), padded.at(x + c, y + r));
      const std::size_t i = static_cast<std::size_t>(y) * ref.width + x;
      ref.value[i] = model.sum;
      ref.magnitude[i] = model.magnitude;
      ref.tolerance[i] = model.tolerance();
    }
  return ref;
}

Image serial_correlate(const Image& padded, const Filter& filter) {
  const int F = filter.width;
  Image out(padded.width - F + 1, padded.height - F + 1);
  for (int y = 0; y < out.height; ++y)
    for (int x = 0; x < out.width; ++x) {
      float sum = 0.0f;
      for (int r = 0; r < F; ++r)
        for (int c = 0; c < F; ++c) sum += filter.at(r, c) * padded.at(x + c, y + r);
      out.at(x, y) = sum;
    }
  return out;
}

double SumModel::tolerance() const {
  constexpr double u = FLT_EPSILON / 2;
  const double worst = 2.0 * u * static_cast<double>(terms) * magnitude;
  const double model = kRandomWalkBound * u * std::sqrt(walk) +
                       2.0 * std::fabs(static_cast<double>(float_sum) - sum) + u * magnitude;
  return std::min(worst, model);
}

namespace {

// Every pixel against its own allowed error, `allowed(i)`.
template <typename Allowed>
Comparison compare(const Image& output, const Reference& ref, Allowed allowed) {
  if (output.width != ref.width || output.height != ref.height)
    throw Error("output is " + std::to_string(output.width) + "x" + std::to_string(output.height) +
                ", expected " + std::to_string(ref.width) + "x" + std::to_string(ref.height));
  Comparison c;
  double worst = -1;
  for (std::size_t i = 0; i < ref.value.size(); ++i) {
    const double out = output.pixels[i];
    const double err = std::fabs(out - ref.value[i]);
    const double limit = allowed(i) + FLT_MIN;
    const bool ok = std::isfinite(out) && err <= limit;
    if (!ok) ++c.bad_pixels;
    // The worst pixel is the one furthest over (or nearest to) its own
    // tolerance; a NaN or infinity is the worst possible.
    const double score = std::isfinite(out) ? err / limit : INFINITY;
    if (score > worst) {
      worst = score;
      c.worst_x = static_cast<int>(i % ref.width);
      c.worst_y = static_cast<int>(i / ref.width);
    }
    if (!std::isfinite(out)) {
      c.max_abs_err = INFINITY;
      c.max_rel_err = INFINITY;
    } else if (ref.magnitude[i] > 0) {
      c.max_abs_err = std::max(c.max_abs_err, err);
      c.max_rel_err = std::max(c.max_rel_err, err / ref.magnitude[i]);
    } else {
      // Every term of this sum is 0 (an image's zero border, a field of 0s
      // around an impulse): the exact answer is 0 and a relative error has
      // no meaning, so its error is counted apart, in absolute terms.
      c.max_abs_err = std::max(c.max_abs_err, err);
      if (err > 0) {
        ++c.zero_sums_nonzero;
        c.max_zero_sum_err = std::max(c.max_zero_sum_err, err);
      }
    }
  }
  return c;
}

}  // namespace

Comparison compare_with_reference(const Image& output, const Reference& ref, int filter_width) {
  if (ref.tolerance.size() != ref.value.size())
    return compare_with_reference_terms(output, ref, static_cast<long long>(filter_width) * filter_width);
  return compare(output, ref, [&](std::size_t i) { return ref.tolerance[i]; });
}

Comparison compare_with_reference_terms(const Image& output, const Reference& ref, long long terms) {
  const double bound = static_cast<double>(terms) * FLT_EPSILON;
  return compare(output, ref, [&](std::size_t i) { return bound * ref.magnitude[i]; });
}

Comparison compare_with_absolute_tolerance(const Image& output, const Reference& ref, double tolerance) {
  return compare(output, ref, [&](std::size_t) { return tolerance; });
}

double output_scale(const Filter& filter, const Image& padded) {
  double weights = 0, pixels = 0;
  for (float w : filter.weights) weights += std::fabs(w);
  for (float x : padded.pixels) pixels = std::max(pixels, static_cast<double>(std::fabs(x)));
  return weights * pixels;
}

std::string Comparison::describe() const {
  std::ostringstream s;
  s << "max abs error " << max_abs_err << ", max rel error " << max_rel_err;
  if (zero_sums_nonzero > 0)
    s << " (relative to sum |w * x|; " << zero_sums_nonzero
      << " output(s) whose terms are all 0 came out non-zero, up to " << max_zero_sum_err << ")";
  if (bad_pixels > 0)
    s << "; " << bad_pixels << " pixel(s) over tolerance, worst at (" << worst_x << ", "
      << worst_y << ")";
  return s.str();
}

// Step::compare's default (common/core/step.hpp): the direct sum's bound.
Comparison Step::compare(const Image& output, const Problem& problem,
                         const Reference& reference) const {
  return compare_with_reference(output, reference, problem.filter.width);
}

}  // namespace conv
