#include "common/machinery/cache_dir.hpp"

#include <string>

#include "common/machinery/platform/files.hpp"

namespace conv {

std::string cache_dir(const std::string& sub) {
  const std::string root = user_cache_root();
  return root.empty() ? "" : root + "/" + sub;
}

bool cache_entry_usable(const std::string& path) {
  std::error_code ec;
  const FileStatus st = link_status(path, ec);  // a link is a link, not what it names
  if (ec) return ec == std::errc::no_such_file_or_directory;
  return st.kind == FileKind::regular;
}

bool write_cache_file(const std::string& path, const std::vector<std::uint8_t>& bytes) {
  if (!cache_entry_usable(path)) return false;
  // A new regular file (never an existing one) beside `path`, private until
  // written, then 0644 whatever the umask, renamed over `path`:
  // replace_file() replaces whatever is there by the new file, so a link
  // put there since the check is replaced itself, its target never written.
  return static_cast<bool>(
      replace_file_contents(path, bytes.data(), bytes.size(), ".clconv-cache-", 0644, /*exact_mode=*/true));
}

}  // namespace conv
