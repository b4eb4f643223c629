// The platform layer's file half: what the harness asks of the operating
// system beside running child processes (common/machinery/platform/process.hpp).
// One interface, two implementations: files_posix.cpp (Linux, macOS) and
// files_windows.cpp (Windows, MinGW-w64 or MSVC). Nothing outside this
// folder includes a platform header.
//
// Paths are std::string: bytes as given on POSIX; on Windows, text in the
// active code page, as argv and the C++ library's narrow names have it.
// Errors come back as std::error_code, whose message() is strerror()'s text
// on POSIX (the harness's messages quote it) and the system's on Windows.
#pragma once
#include <cstddef>
#include <cstdint>
#include <ctime>
#include <string>
#include <system_error>

namespace conv {

// ---- what is at a path ----------------------------------------------------------

enum class FileKind { missing, regular, directory, symlink, fifo, socket, device, other };

struct FileStatus {
  FileKind kind = FileKind::missing;
  std::uint64_t size = 0;  // bytes, for a regular file
};

// What `path` names, following symbolic links (stat). When the query fails
// the kind is `missing` and `ec` says why (no_such_file_or_directory for
// nothing there); otherwise `ec` is cleared.
FileStatus file_status(const std::string& path, std::error_code& ec);

// The same without following a link at `path` itself (lstat): a symbolic
// link is FileKind::symlink.
FileStatus link_status(const std::string& path, std::error_code& ec);

// "a directory", "a FIFO", "a socket", "a device", "a special file": the
// words the harness's refusals use ("PATH: is a FIFO, not ...").
const char* kind_text(FileKind kind);

// The longest name one folder entry may have (NAME_MAX; 255 on Windows).
std::size_t max_file_name_length();

// ---- writing ----------------------------------------------------------------------

// A file this program created: open() never opens something already at the
// path (O_CREAT | O_EXCL; CREATE_NEW), so it never writes through a link or
// into a file it did not make. Closed by close() or the destructor; never
// removed by either.
class NewFile {
 public:
  NewFile() = default;
  ~NewFile();
  NewFile(const NewFile&) = delete;
  NewFile& operator=(const NewFile&) = delete;

  // Creates `path`. `posix_mode` is the new file's permissions less the
  // umask (ignored on Windows: the file inherits its folder's ACL).
  // errc::file_exists when something is there.
  std::error_code open(const std::string& path, unsigned posix_mode = 0666);
  // Writes all of `size` bytes (retrying short writes and interruptions).
  std::error_code write(const void* data, std::size_t size);
  // Sets the permissions exactly, whatever the umask (fchmod; nothing on
  // Windows).
  std::error_code set_posix_mode(unsigned posix_mode);
  // Closes; the error a delayed write reports at close is returned.
  std::error_code close();
  bool is_open() const;

 private:
  std::intptr_t handle_ = -1;  // a file descriptor, or a Windows HANDLE
};

// A new empty file in `folder` ("" for the current one) named
// PREFIX + process id + "-" + a counter (short, so that a target name of
// the longest length allowed still has room beside it), opened in `file`;
// its path in `name`. The first error other than "exists" is returned.
std::error_code create_temporary_file(const std::string& folder, const std::string& prefix, NewFile& file,
                                      std::string& name, unsigned posix_mode = 0666);

// Renames `from` over `to` in one step (rename(); MoveFileExW with
// MOVEFILE_REPLACE_EXISTING on Windows): a reader of `to` sees the old file
// or the new one, never a mix. Whatever is at `to` is replaced itself: a
// link there is replaced, its target never written.
std::error_code replace_file(const std::string& from, const std::string& to);

// Removes a file (not a folder); a file that is not there is no error.
std::error_code remove_file(const std::string& path);

// Writes `size` bytes to a new temporary file beside `target` (in the same
// folder, so that the rename stays on one file system; named as
// create_temporary_file() names it) and renames it over `target`.
// `target` itself is not followed: a link there is replaced. Nothing is
// left behind on failure; `step` says what failed (create: no temporary
// file could be made; write: writing or closing it; rename: the rename).
// The new file's permissions are `posix_mode` less the umask, or, with
// `exact_mode`, `posix_mode` itself (ignored on Windows).
enum class ReplaceStep { none, create, write, rename };
struct ReplaceResult {
  ReplaceStep step = ReplaceStep::none;
  std::error_code error;
  explicit operator bool() const { return step == ReplaceStep::none; }  // true: replaced
};
ReplaceResult replace_file_contents(const std::string& target, const void* data, std::size_t size,
                                    const std::string& temporary_prefix, unsigned posix_mode = 0666,
                                    bool exact_mode = false);

// Makes a folder this user's alone (chmod 0700). On Windows nothing is
// changed: folders under the user's profile (%TEMP%, %LOCALAPPDATA%) are
// already private to the user by their inherited ACL.
void restrict_folder_to_user(const std::string& path);

// ---- locks -------------------------------------------------------------------------

// An exclusive lock on a lock file, held while the object lives (or until
// unlock()). The file is created when missing, never opened through a
// symbolic link, only used when it is a regular file, and never written.
// flock() on POSIX; LockFileEx over the whole file on Windows. Each FileLock
// opens the file itself, so two in one process exclude each other as two
// processes do.
class FileLock {
 public:
  enum class Try { held, busy, unavailable };

  explicit FileLock(const std::string& path);
  ~FileLock();
  FileLock(const FileLock&) = delete;
  FileLock& operator=(const FileLock&) = delete;

  // Whether the lock file could be opened (false for a link, a folder, an
  // unwritable folder...): then try_lock() is always `unavailable`.
  bool opened() const;
  // One attempt, without waiting: held (now or already), busy (another
  // holder has it) or unavailable (no lock file, or no locks on this file
  // system).
  Try try_lock();
  void unlock();
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  std::intptr_t handle_ = -1;  // a file descriptor, or a Windows HANDLE
  bool held_ = false;
};

// ---- the user, the process, the terminal -----------------------------------------

// The folder where this user's caches belong, or "" when none is known:
// $XDG_CACHE_HOME wherever it is set (so tests and users can move every
// cache), else $HOME/.cache on Linux, $HOME/Library/Caches on macOS and
// %LOCALAPPDATA% on Windows. An empty variable counts as unset. Creates
// nothing.
std::string user_cache_root();

// Which variables user_cache_root() looked at, for a message when it found
// none: "neither XDG_CACHE_HOME nor HOME is set".
std::string user_cache_root_unset();

// A short name for the user running this program, safe in a file name: the
// user id on POSIX ("1000"), the user's SID on Windows ("S-1-5-21-...").
std::string user_tag();

// This process's id.
long process_id();

// Whether standard output / standard error is a terminal (isatty;
// _isatty on Windows, where a console is one and a pipe, a file or MSYS's
// terminal, which is a pipe, is not).
bool stdout_is_terminal();
bool stderr_is_terminal();

// `t` as a UTC calendar time, thread-safe (gmtime_r; gmtime_s on Windows).
std::tm utc_time(std::time_t t);

// The machine's physical memory in bytes, or 0 when it cannot be told.
std::uint64_t physical_memory_bytes();

// Sets an environment variable of this process; with `overwrite` false, a
// value already set is kept (setenv; _putenv_s on Windows).
void set_environment(const std::string& name, const std::string& value, bool overwrite = true);
// Removes one (unsetenv; on Windows, _putenv_s with an empty value, which
// removes it there).
void unset_environment(const std::string& name);

}  // namespace conv
