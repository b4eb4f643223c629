#include "common/cache_dir.hpp"

#include <cstdlib>

namespace conv {

std::string cache_dir(const std::string& sub) {
  const char* xdg = std::getenv("XDG_CACHE_HOME");
  if (xdg && *xdg) return std::string(xdg) + "/" + sub;
  const char* home = std::getenv("HOME");
  if (home && *home) return std::string(home) + "/.cache/" + sub;
  return "";
}

}  // namespace conv
