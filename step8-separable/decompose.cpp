// The separable decomposition of step 8 (decompose.hpp).
#include "step8-separable/decompose.hpp"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <numeric>
#include <sstream>

namespace conv {

namespace {

// One-sided Jacobi: rotate columns of A (F x F, row-major) until they are
// orthogonal; then A V = W, W's column j is sigma_j u_j, and A = W V^T.
void jacobi_svd(std::vector<double>& a, std::vector<double>& v, int n) {
  v.assign(static_cast<std::size_t>(n) * n, 0.0);
  for (int i = 0; i < n; ++i) v[static_cast<std::size_t>(i) * n + i] = 1.0;
  auto at = [n](std::vector<double>& m, int r, int c) -> double& {
    return m[static_cast<std::size_t>(r) * n + c];
  };
  for (int sweep = 0; sweep < 60; ++sweep) {
    bool rotated = false;
    for (int p = 0; p < n - 1; ++p)
      for (int q = p + 1; q < n; ++q) {
        double alpha = 0, beta = 0, gamma = 0;
        for (int r = 0; r < n; ++r) {
          alpha += at(a, r, p) * at(a, r, p);
          beta += at(a, r, q) * at(a, r, q);
          gamma += at(a, r, p) * at(a, r, q);
        }
        if (gamma == 0.0 || std::fabs(gamma) <= DBL_EPSILON * std::sqrt(alpha * beta)) continue;
        rotated = true;
        const double zeta = (beta - alpha) / (2.0 * gamma);
        const double t = (zeta >= 0 ? 1.0 : -1.0) / (std::fabs(zeta) + std::sqrt(1.0 + zeta * zeta));
        const double c = 1.0 / std::sqrt(1.0 + t * t), s = c * t;
        for (int r = 0; r < n; ++r) {
          const double ap = at(a, r, p), aq = at(a, r, q);
          at(a, r, p) = c * ap - s * aq;
          at(a, r, q) = s * ap + c * aq;
          const double vp = at(v, r, p), vq = at(v, r, q);
          at(v, r, p) = c * vp - s * vq;
          at(v, r, q) = s * vp + c * vq;
        }
      }
    if (!rotated) break;
  }
}

// Entries far below the vector's largest are rounding noise from the
// rotations: zero them, so a zero column of K (sobel's) stays exactly zero.
std::vector<float> to_float_clean(const std::vector<double>& x) {
  double largest = 0;
  for (double e : x) largest = std::max(largest, std::fabs(e));
  std::vector<float> out(x.size());
  for (std::size_t i = 0; i < x.size(); ++i)
    out[i] = std::fabs(x[i]) <= 64 * DBL_EPSILON * largest ? 0.0f : static_cast<float>(x[i]);
  return out;
}

}  // namespace

double separable_tolerance(const Filter& filter) {
  double largest = 0;
  for (float w : filter.weights) largest = std::max(largest, std::fabs(static_cast<double>(w)));
  return static_cast<double>(filter.width) * filter.width * FLT_EPSILON * largest;
}

SeparableFilter separate(const Filter& filter) {
  const int n = filter.width;
  auto at = [n](int r, int c) { return static_cast<std::size_t>(r) * n + c; };
  std::vector<double> w(filter.weights.begin(), filter.weights.end()), v;
  jacobi_svd(w, v, n);

  SeparableFilter s;
  s.width = n;
  std::vector<int> order(n);
  std::vector<double> sigma(n);
  for (int j = 0; j < n; ++j) {
    double sq = 0;
    for (int r = 0; r < n; ++r) sq += w[at(r, j)] * w[at(r, j)];
    sigma[j] = std::sqrt(sq);
  }
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return sigma[a] > sigma[b]; });
  for (int j : order) s.singular_values.push_back(sigma[j]);
  const double top = s.singular_values.front();
  for (double x : s.singular_values) s.full_rank += x > n * DBL_EPSILON * top ? 1 : 0;

  const double tolerance = separable_tolerance(filter);
  s.residual = std::vector<double>(filter.weights.begin(), filter.weights.end());
  s.magnitude.assign(at(n, 0), 0.0);
  for (int j : order) {
    const double sj = sigma[j], root = std::sqrt(sj);
    if (s.rank > 0 && sj == 0.0) break;
    std::vector<double> column(n), row(n);
    // u_j sqrt(sigma_j) = W's column j / sqrt(sigma_j); v_j sqrt(sigma_j).
    for (int r = 0; r < n; ++r) column[r] = sj > 0 ? w[at(r, j)] / root : 0.0;
    for (int c = 0; c < n; ++c) row[c] = v[at(c, j)] * root;
    s.columns.push_back(to_float_clean(column));
    s.rows.push_back(to_float_clean(row));
    ++s.rank;
    double worst = 0;
    for (int r = 0; r < n; ++r)
      for (int c = 0; c < n; ++c) {
        const double product = static_cast<double>(s.columns.back()[r]) * s.rows.back()[c];
        s.residual[at(r, c)] -= product;
        s.magnitude[at(r, c)] += std::fabs(product);
        worst = std::max(worst, std::fabs(s.residual[at(r, c)]));
      }
    if (worst <= tolerance) break;
  }
  return s;
}

std::string describe_work(const SeparableFilter& s) {
  std::ostringstream out;
  const double ratio = static_cast<double>(s.direct_work()) / s.separable_work();
  out.precision(3);
  out << "rank " << s.rank << " of " << s.width << " (SVD in double): " << s.separable_work()
      << " multiply-adds per output instead of " << s.direct_work() << " ("
      << (ratio > 1 ? ratio : 1 / ratio)
      << (ratio > 1 ? "x less work)" : "x more work: the direct sum, step 7, does less for this filter; computed anyway)");
  return out.str();
}

Comparison compare_separable(const Image& output, const Image& padded, const SeparableFilter& s,
                             const Reference& reference) {
  // The harness's comparator with the magnitude replaced by this sum's:
  // n eps m + r = n eps (m + r / (n eps)).
  const int n = s.width;
  const long long terms = 2LL * (2 * n + s.rank);
  const double scale = 1.0 / (static_cast<double>(terms) * FLT_EPSILON);
  Reference bound = reference;
  for (int y = 0; y < reference.height; ++y)
    for (int x = 0; x < reference.width; ++x) {
      double m = 0, r = 0;
      for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j) {
          const double pixel = std::fabs(static_cast<double>(padded.at(x + j, y + i)));
          const std::size_t k = static_cast<std::size_t>(i) * n + j;
          m += s.magnitude[k] * pixel;
          r += std::fabs(s.residual[k]) * pixel;
        }
      bound.magnitude[static_cast<std::size_t>(y) * reference.width + x] = m + r * scale;
    }
  return compare_with_reference_terms(output, bound, terms);
}

}  // namespace conv
