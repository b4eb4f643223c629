#include "histogram/counts.hpp"

#include <sstream>

namespace conv::histogram {

Counts serial_count(const RgbImage& image) {
  Counts counts{};
  const std::uint8_t* p = image.rgb.data();
  const std::size_t n = image.pixels();
  for (std::size_t i = 0; i < n; ++i, p += 3) {
    ++counts[p[0]];
    ++counts[kBins + p[1]];
    ++counts[2 * kBins + p[2]];
  }
  return counts;
}

Counts merge_partials(const std::vector<std::uint32_t>& partials, std::size_t rows) {
  Counts counts{};
  const std::uint32_t* row = partials.data();
  // Row by row, so the inner loop runs over contiguous memory and vectorizes.
  for (std::size_t r = 0; r < rows; ++r, row += kCounts)
    for (int b = 0; b < kCounts; ++b) counts[b] += row[b];
  return counts;
}

std::string describe_difference(const Counts& got, const Counts& expected) {
  int differing = 0, first = -1;
  for (int b = 0; b < kCounts; ++b)
    if (got[b] != expected[b]) {
      ++differing;
      if (first < 0) first = b;
    }
  if (differing == 0) return "";
  static const char channel[] = {'r', 'g', 'b'};
  std::ostringstream s;
  s << differing << " of " << kCounts << " bins differ; first " << channel[first / kBins] << "["
    << first % kBins << "] = " << got[first] << ", expected " << expected[first];
  return s.str();
}

std::string counts_csv(const Counts& counts) {
  std::ostringstream s;
  s << "bin,r,g,b\n";
  for (int b = 0; b < kBins; ++b)
    s << b << ',' << counts[b] << ',' << counts[kBins + b] << ',' << counts[2 * kBins + b] << '\n';
  return s.str();
}

}  // namespace conv::histogram
