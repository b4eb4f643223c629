#include "common/machinery/files.hpp"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "common/core/errors.hpp"
#include "common/machinery/platform/files.hpp"

namespace conv {

void require_regular_file(const std::string& path, const std::string& what) {
  std::error_code ec;
  const FileStatus st = file_status(path, ec);
  if (ec) throw Error(path + ": cannot open: " + ec.message());
  if (st.kind == FileKind::regular) return;
  throw Error(path + ": is " + kind_text(st.kind) + ", not " + what + " (only regular files are read)");
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
