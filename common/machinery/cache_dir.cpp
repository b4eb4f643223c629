#include "common/machinery/cache_dir.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace conv {

std::string cache_dir(const std::string& sub) {
  const char* xdg = std::getenv("XDG_CACHE_HOME");
  if (xdg && *xdg) return std::string(xdg) + "/" + sub;
  const char* home = std::getenv("HOME");
  if (home && *home) return std::string(home) + "/.cache/" + sub;
  return "";
}

bool cache_entry_usable(const std::string& path) {
  struct stat st;
  if (::lstat(path.c_str(), &st) != 0) return errno == ENOENT;
  return S_ISREG(st.st_mode);
}

bool write_cache_file(const std::string& path, const std::vector<std::uint8_t>& bytes) {
  if (!cache_entry_usable(path)) return false;
  const auto slash = path.rfind('/');
  const std::string folder = slash == std::string::npos ? "." : path.substr(0, slash);
  std::string tmp = folder + "/.clconv-cache-XXXXXX";
  const int fd = ::mkstemp(tmp.data());  // a new regular file, never an existing one
  if (fd < 0) return false;
  bool ok = true;
  std::size_t done = 0;
  while (ok && done < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) ok = false;
    else done += static_cast<std::size_t>(n);
  }
  ::fchmod(fd, 0644);
  ok = ::close(fd) == 0 && ok;
  // rename() replaces whatever is at `path` by the new file: a link put
  // there since the check is replaced itself, its target never written.
  ok = ok && std::rename(tmp.c_str(), path.c_str()) == 0;
  if (!ok) ::unlink(tmp.c_str());
  return ok;
}

}  // namespace conv
