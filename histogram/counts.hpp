// The result every variant computes: 3 x 256 bin counts, and the serial
// count that every variant is checked and timed against.
#pragma once
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "histogram/rgb_image.hpp"

namespace conv::histogram {

constexpr int kBins = 256;
constexpr int kChannels = 3;
constexpr int kCounts = kBins * kChannels;  // 256 red, then 256 green, then 256 blue

using Counts = std::array<std::uint32_t, kCounts>;

// The serial baseline: the plain loop a C programmer writes first.
Counts serial_count(const RgbImage& image);

// Adds `rows` partial histograms of kCounts bins each (the host merge).
Counts merge_partials(const std::vector<std::uint32_t>& partials, std::size_t rows);

// "" when equal, else one line naming the first differing bin and how many differ.
std::string describe_difference(const Counts& got, const Counts& expected);

// The --output format: a header "bin,r,g,b" and 256 rows.
std::string counts_csv(const Counts& counts);

}  // namespace conv::histogram
