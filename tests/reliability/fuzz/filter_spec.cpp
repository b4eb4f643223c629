// libFuzzer target: the command-line parsers (--filter specs, sizes such as
// --wg and synthetic:WxH, numbers, borders). Every input must give a valid
// result or a conv::UsageError / conv::Error; anything else is a bug, and so
// is a filter with a wrong size or a non-finite weight.
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "common/core/errors.hpp"
#include "common/machinery/filter_specs.hpp"
#include "common/machinery/image_files.hpp"
#include "common/machinery/parse.hpp"

namespace {

void check_filter(const conv::Filter& f) {
  if (f.width < 1 || f.width > conv::kMaxFilterWidth) std::abort();
  if (f.weights.size() != static_cast<std::size_t>(f.width) * f.width) std::abort();
  for (float w : f.weights)
    if (!std::isfinite(w)) std::abort();
}

template <typename F>
void refusal_is_fine(F&& parse) {
  try {
    parse();
  } catch (const conv::Error&) {
  } catch (const conv::UsageError&) {
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  // file:PATH would read whatever the fuzzer names; the file format has its own target.
  if (text.rfind("file", 0) != 0) refusal_is_fine([&] { check_filter(conv::parse_filter_spec(text)); });
  refusal_is_fine([&] {
    const auto [w, h] = conv::parse_size(text, "--wg", 1 << 14);
    if (w < 1 || h < 1 || w > (1 << 14) || h > (1 << 14)) std::abort();
  });
  refusal_is_fine([&] {
    if (!std::isfinite(conv::parse_number(text, "--sigma"))) std::abort();
  });
  refusal_is_fine([&] { conv::parse_border(text); });
  return 0;
}
