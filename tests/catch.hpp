// Catch2 for the tests, v2 (Debian 12's) or v3 (Ubuntu 24.04's, Homebrew's,
// vcpkg's): cmake/dependencies.cmake finds one and says which through
// CLCONV_CATCH2_MAJOR. Every test file includes this header, never Catch2's
// own, and uses the few names below where the two versions differ.
#pragma once
#include <string>

#if CLCONV_CATCH2_MAJOR >= 3
#include <catch2/catch_all.hpp>
using Catch::Approx;
namespace clconv_test {
// A string that contains `text` (v2's Contains, v3's ContainsSubstring).
inline Catch::Matchers::StringContainsMatcher ContainsText(const std::string& text) {
  return Catch::Matchers::ContainsSubstring(text);
}
}  // namespace clconv_test
#else
#include <catch2/catch.hpp>
namespace clconv_test {
inline Catch::Matchers::StdString::ContainsMatcher ContainsText(const std::string& text) {
  return Catch::Matchers::Contains(text);
}
}  // namespace clconv_test
#endif
using clconv_test::ContainsText;
