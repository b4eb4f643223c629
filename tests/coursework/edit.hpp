// A kernel's source with one passage changed, for the tests' classes of
// submissions: the first `from` becomes `to` (the test stops if there is none).
#pragma once
#include <string>

#include "tests/catch.hpp"

namespace conv::test {

inline std::string mutate(const std::string& source, const std::string& from, const std::string& to) {
  const auto at = source.find(from);
  INFO("the text to change: " << from);
  REQUIRE(at != std::string::npos);
  return source.substr(0, at) + to + source.substr(at + from.size());
}

}  // namespace conv::test
