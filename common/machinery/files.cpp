#include "common/machinery/files.hpp"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "common/core/errors.hpp"

namespace conv {

void require_regular_file(const std::string& path, const std::string& what) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) throw Error(path + ": cannot open: " + std::strerror(errno));
  if (S_ISREG(st.st_mode)) return;
  const char* kind = S_ISDIR(st.st_mode)    ? "a directory"
                     : S_ISFIFO(st.st_mode) ? "a FIFO"
                     : S_ISSOCK(st.st_mode) ? "a socket"
                     : S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode) ? "a device"
                                                                  : "a special file";
  throw Error(path + ": is " + kind + ", not " + what + " (only regular files are read)");
}

std::string read_text_file(const std::string& path) {
  require_regular_file(path, "a file");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(path + ": cannot open: " + std::strerror(errno));
  // Read in pieces up to a cap, so that /dev/zero or a wrong path to a huge
  // file is an error rather than all the memory there is.
  constexpr std::size_t kMaxBytes = std::size_t{16} << 20;
  std::string text;
  char piece[1 << 16];
  while (in.read(piece, sizeof piece) || in.gcount() > 0) {
    text.append(piece, static_cast<std::size_t>(in.gcount()));
    if (text.size() > kMaxBytes) throw Error(path + ": larger than 16 MiB, not a kernel or filter file");
  }
  if (in.bad()) throw Error(path + ": read failed");
  // An empty --kernel file would otherwise mean "the embedded kernel".
  if (text.empty()) throw Error(path + ": file is empty");
  return text;
}

}  // namespace conv
