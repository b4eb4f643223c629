// The platform layer's files on POSIX (Linux, macOS): stat, open with
// O_EXCL, rename, flock, isatty, the environment.
#include "common/machinery/platform/files.hpp"

#include <fcntl.h>
#include <limits.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>
#if defined(__APPLE__)
#include <sys/sysctl.h>
#include <sys/types.h>
#endif

#include <cerrno>
#include <cstdio>
#include <cstdlib>

namespace conv {
namespace {

std::error_code last_error() { return std::error_code(errno, std::generic_category()); }

FileStatus from_stat(const struct stat& st) {
  FileStatus s;
  s.kind = S_ISREG(st.st_mode)                         ? FileKind::regular
           : S_ISDIR(st.st_mode)                       ? FileKind::directory
           : S_ISLNK(st.st_mode)                       ? FileKind::symlink
           : S_ISFIFO(st.st_mode)                      ? FileKind::fifo
           : S_ISSOCK(st.st_mode)                      ? FileKind::socket
           : S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode) ? FileKind::device
                                                       : FileKind::other;
  if (s.kind == FileKind::regular) s.size = static_cast<std::uint64_t>(st.st_size);
  return s;
}

int fd_of(std::intptr_t handle) { return static_cast<int>(handle); }

std::string variable(const char* name) {
  const char* value = std::getenv(name);
  return value ? value : "";
}

}  // namespace

// ---- what is at a path ----------------------------------------------------------

FileStatus file_status(const std::string& path, std::error_code& ec) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) {
    ec = last_error();
    return {};
  }
  ec.clear();
  return from_stat(st);
}

FileStatus link_status(const std::string& path, std::error_code& ec) {
  struct stat st;
  if (::lstat(path.c_str(), &st) != 0) {
    ec = last_error();
    return {};
  }
  ec.clear();
  return from_stat(st);
}

std::size_t max_file_name_length() { return NAME_MAX; }

// ---- writing ----------------------------------------------------------------------

NewFile::~NewFile() {
  if (is_open()) close();
}

bool NewFile::is_open() const { return handle_ >= 0; }

std::error_code NewFile::open(const std::string& path, unsigned posix_mode) {
  if (is_open()) close();
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, static_cast<mode_t>(posix_mode));
  if (fd < 0) return last_error();
  handle_ = fd;
  return {};
}

std::error_code NewFile::write(const void* data, std::size_t size) {
  if (!is_open()) return std::make_error_code(std::errc::bad_file_descriptor);
  const auto* bytes = static_cast<const unsigned char*>(data);
  std::size_t done = 0;
  while (done < size) {
    const ssize_t n = ::write(fd_of(handle_), bytes + done, size - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return last_error();
    if (n == 0) return std::make_error_code(std::errc::no_space_on_device);
    done += static_cast<std::size_t>(n);
  }
  return {};
}

std::error_code NewFile::set_posix_mode(unsigned posix_mode) {
  if (!is_open()) return std::make_error_code(std::errc::bad_file_descriptor);
  if (::fchmod(fd_of(handle_), static_cast<mode_t>(posix_mode)) != 0) return last_error();
  return {};
}

std::error_code NewFile::close() {
  if (!is_open()) return {};
  const int fd = fd_of(handle_);
  handle_ = -1;
  if (::close(fd) != 0) return last_error();
  return {};
}

std::error_code replace_file(const std::string& from, const std::string& to) {
  if (std::rename(from.c_str(), to.c_str()) != 0) return last_error();
  return {};
}

std::error_code remove_file(const std::string& path) {
  if (::unlink(path.c_str()) != 0 && errno != ENOENT) return last_error();
  return {};
}

void restrict_folder_to_user(const std::string& path) { ::chmod(path.c_str(), 0700); }

// ---- locks -------------------------------------------------------------------------

FileLock::FileLock(const std::string& path) : path_(path) {
  // Never through a link (O_NOFOLLOW); O_NONBLOCK, or a FIFO there would
  // block the open; then only a regular file is kept.
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK, 0644);
  if (fd < 0) return;
  struct stat st;
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    return;
  }
  handle_ = fd;
}

FileLock::~FileLock() {
  if (handle_ >= 0) ::close(fd_of(handle_));  // closing releases the lock
}

bool FileLock::opened() const { return handle_ >= 0; }

FileLock::Try FileLock::try_lock() {
  if (handle_ < 0) return Try::unavailable;
  if (held_) return Try::held;
  for (;;) {
    if (::flock(fd_of(handle_), LOCK_EX | LOCK_NB) == 0) {
      held_ = true;
      return Try::held;
    }
    if (errno == EINTR) continue;
    return errno == EWOULDBLOCK ? Try::busy : Try::unavailable;
  }
}

void FileLock::unlock() {
  if (handle_ >= 0 && held_) ::flock(fd_of(handle_), LOCK_UN);
  held_ = false;
}

// ---- the user, the process, the terminal -----------------------------------------

std::string user_cache_root() {
  if (const std::string xdg = variable("XDG_CACHE_HOME"); !xdg.empty()) return xdg;
  const std::string home = variable("HOME");
  if (home.empty()) return "";
#if defined(__APPLE__)
  return home + "/Library/Caches";
#else
  return home + "/.cache";
#endif
}

std::string user_cache_root_unset() { return "neither XDG_CACHE_HOME nor HOME is set"; }

std::string user_tag() { return std::to_string(static_cast<unsigned long>(::getuid())); }

long process_id() { return static_cast<long>(::getpid()); }

bool stdout_is_terminal() { return ::isatty(STDOUT_FILENO) == 1; }
bool stderr_is_terminal() { return ::isatty(STDERR_FILENO) == 1; }

std::tm utc_time(std::time_t t) {
  std::tm tm{};
  ::gmtime_r(&t, &tm);
  return tm;
}

std::uint64_t physical_memory_bytes() {
#if defined(__APPLE__)
  std::uint64_t bytes = 0;
  std::size_t length = sizeof bytes;
  if (::sysctlbyname("hw.memsize", &bytes, &length, nullptr, 0) != 0) return 0;
  return bytes;
#else
  const long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGE_SIZE);
  if (pages <= 0 || page <= 0) return 0;
  return static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(page);
#endif
}

void set_environment(const std::string& name, const std::string& value, bool overwrite) {
  ::setenv(name.c_str(), value.c_str(), overwrite ? 1 : 0);
}

void unset_environment(const std::string& name) { ::unsetenv(name.c_str()); }

}  // namespace conv
