// The named filter specs (--filter) and the text format of filter files.
// The Filter itself is common/core/problem.hpp's.
#pragma once
#include <string>
#include <vector>

#include "common/core/problem.hpp"

namespace conv {

// Widths above this are refused: nobody convolves with a larger dense
// filter in the spatial domain, and a typo should not allocate gigabytes.
constexpr int kMaxFilterWidth = 127;

// motion45 | box:N | gaussian:N[:sigma] | sobel-x | sobel-y | sharpen |
// laplacian | random:N[:seed] | file:PATH. Throws UsageError for a bad spec
// and Error for an unreadable or malformed file.
Filter parse_filter_spec(const std::string& spec);

// The text format of file:PATH: numbers separated by whitespace, '#' starts
// a comment that runs to the end of the line, F*F finite values in row-major
// order (F is inferred). `name` is used in error messages.
Filter parse_filter_text(const std::string& text, const std::string& name);

// A one-line description of every spec, for --help.
std::string filter_spec_help();

// --filters' ranges expanded (sweep and every --tune): "box:1..32" -> box:1,
// box:2, ..., box:32 ("random:3..9:7" keeps ":7"); other specs as given.
std::vector<std::string> expand_filters(const std::vector<std::string>& specs);

}  // namespace conv
