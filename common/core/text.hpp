// Two small text helpers the core's and the machinery's .cpp files share
// (device names, option lists); no core header includes this one.
#pragma once
#include <cctype>
#include <string>
#include <vector>

namespace conv {

// `s` without leading and trailing white space (and trailing NULs, which
// some drivers leave in their info strings).
inline std::string trim(std::string s) {
  while (!s.empty() && (s.back() == '\0' || std::isspace(static_cast<unsigned char>(s.back()))))
    s.pop_back();
  std::size_t start = 0;
  while (start < s.size() && std::isspace(static_cast<unsigned char>(s[start]))) ++start;
  return s.substr(start);
}

// "a, b, c".
inline std::string join(const std::vector<std::string>& words) {
  std::string list;
  for (const auto& w : words) list += (list.empty() ? "" : ", ") + w;
  return list;
}

}  // namespace conv
