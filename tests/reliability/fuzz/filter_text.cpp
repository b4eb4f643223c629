// libFuzzer target: the filter-file format (file:PATH). Every input must give
// a square filter of finite weights or one conv::Error whose message is one
// line; anything else is a bug.
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "common/core/errors.hpp"
#include "common/machinery/filter_specs.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    const conv::Filter f = conv::parse_filter_text(text, "fuzz.txt");
    if (f.width < 1 || f.width > conv::kMaxFilterWidth) std::abort();
    if (f.weights.size() != static_cast<std::size_t>(f.width) * f.width) std::abort();
    for (float w : f.weights)
      if (!std::isfinite(w)) std::abort();
  } catch (const conv::Error& e) {
    if (std::string(e.what()).find('\n') != std::string::npos) std::abort();
  }
  return 0;
}
