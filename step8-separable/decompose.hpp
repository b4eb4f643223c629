// A filter as a sum of separable terms: K = sum over j < rank of
// column_j * row_j^T, from the singular value decomposition (in double).
#pragma once
#include <string>
#include <vector>

#include "common/machinery/reference.hpp"

namespace conv {

struct SeparableFilter {
  int width = 0;  // F
  int rank = 0;   // terms kept: the smallest that matches the filter (below)
  int full_rank = 0;  // nonzero singular values, to machine precision
  std::vector<double> singular_values;  // all F, largest first
  // Term j: rows[j] runs along each image row (F weights, the row pass),
  // columns[j] down each column (the column pass); each carries sqrt(sigma_j).
  std::vector<std::vector<float>> rows, columns;
  // What the kept terms, in float, leave out: K - sum_j columns_j rows_j^T.
  std::vector<double> residual;
  // sum_j |columns_j| |rows_j|^T: the size of what the passes add up.
  std::vector<double> magnitude;

  int direct_work() const { return width * width; }  // multiply-adds per output
  int separable_work() const { return 2 * width * rank; }
};

// Largest |residual| the kept terms may leave: F * F * FLT_EPSILON * max|K|,
// the direct sum's own rounding for the largest weight.
double separable_tolerance(const Filter& filter);

// The SVD of `filter` (one-sided Jacobi, double) and the smallest rank whose
// terms, rounded to float, are within separable_tolerance() of every weight.
SeparableFilter separate(const Filter& filter);

// "rank 1 of 31: 62 multiply-adds per output instead of 961 (15.5x less work)".
std::string describe_work(const SeparableFilter& s);

// Checks `output` against the exact answer within the separable sum's bound:
// |out - exact| <= n * eps * (magnitude (x) |x|) + (|residual| (x) |x|),
// n = 2 (2F + rank) roundings (the classic bound, twice, as the harness's).
Comparison compare_separable(const Image& output, const Image& padded, const SeparableFilter& s,
                             const Reference& reference);

}  // namespace conv
