// The parts of the platform layer's file interface that are the same on
// every system, written on its primitives (files_posix.cpp,
// files_windows.cpp): the refusals' words, temporary names, and replacing a
// file by a new one.
#include "common/machinery/platform/files.hpp"

#include <atomic>
#include <filesystem>

namespace conv {

const char* kind_text(FileKind kind) {
  switch (kind) {
    case FileKind::missing: return "nothing";
    case FileKind::regular: return "a regular file";
    case FileKind::directory: return "a directory";
    case FileKind::symlink: return "a symbolic link";
    case FileKind::fifo: return "a FIFO";
    case FileKind::socket: return "a socket";
    case FileKind::device: return "a device";
    case FileKind::other: break;
  }
  return "a special file";
}

std::error_code create_temporary_file(const std::string& folder, const std::string& prefix, NewFile& file,
                                      std::string& name, unsigned posix_mode) {
  static std::atomic<unsigned> counter{0};
  namespace fs = std::filesystem;
  const fs::path dir = folder.empty() ? fs::path(".") : fs::path(folder);
  std::error_code ec;
  for (int attempt = 0; attempt < 100; ++attempt) {
    name = (dir / (prefix + std::to_string(process_id()) + "-" + std::to_string(counter++))).string();
    ec = file.open(name, posix_mode);
    if (!ec || ec != std::errc::file_exists) return ec;
  }
  return ec;
}

ReplaceResult replace_file_contents(const std::string& target, const void* data, std::size_t size,
                                    const std::string& temporary_prefix, unsigned posix_mode,
                                    bool exact_mode) {
  ReplaceResult result;
  NewFile file;
  std::string tmp;
  const auto fail = [&](ReplaceStep step, std::error_code ec) {
    if (file.is_open()) file.close();
    remove_file(tmp);
    result.step = step;
    result.error = ec;
    return result;
  };
  const std::string folder = std::filesystem::path(target).parent_path().string();
  // Created private when the mode is set exactly afterwards, as mkstemp()
  // makes a file: nobody else sees it before it has its final mode.
  if (std::error_code ec = create_temporary_file(folder, temporary_prefix, file, tmp, exact_mode ? 0600 : posix_mode)) {
    result.step = ReplaceStep::create;
    result.error = ec;
    return result;
  }
  if (std::error_code ec = file.write(data, size)) return fail(ReplaceStep::write, ec);
  if (exact_mode) file.set_posix_mode(posix_mode);  // a file left private is still a good cache entry
  if (std::error_code ec = file.close()) return fail(ReplaceStep::write, ec);
  if (std::error_code ec = replace_file(tmp, target)) return fail(ReplaceStep::rename, ec);
  return result;
}

}  // namespace conv
