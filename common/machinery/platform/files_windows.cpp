// The platform layer's files on Windows (MinGW-w64 or MSVC), on the Win32
// API. Narrow strings are in the active code page (CP_ACP), as main()'s
// argv, getenv() and the C++ library's narrow file names have them, so a
// path means here what it means to std::ifstream; they are used as UTF-16
// (the W functions). Where Windows has no equivalent of what the POSIX side
// does, the comment says what happens instead.
#if defined(_WIN32)

#ifndef NOMINMAX
#define NOMINMAX
#endif
#ifndef WIN32_LEAN_AND_MEAN
#define WIN32_LEAN_AND_MEAN
#endif
#include <windows.h>
#include <sddl.h>   // ConvertSidToStringSidW
#include <io.h>     // _isatty
#include <stdio.h>  // _fileno
#include <stdlib.h> // _wputenv_s

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "common/machinery/platform/files.hpp"

namespace conv {
namespace {

std::wstring wide(const std::string& text) {
  if (text.empty()) return std::wstring();
  const int n = ::MultiByteToWideChar(CP_ACP, 0, text.data(), static_cast<int>(text.size()), nullptr, 0);
  if (n <= 0) return std::wstring();
  std::wstring out(static_cast<std::size_t>(n), L'\0');
  ::MultiByteToWideChar(CP_ACP, 0, text.data(), static_cast<int>(text.size()), out.data(), n);
  return out;
}

std::string narrow(const wchar_t* text) {
  if (!text || !*text) return std::string();
  const int n = ::WideCharToMultiByte(CP_ACP, 0, text, -1, nullptr, 0, nullptr, nullptr);
  if (n <= 1) return std::string();
  std::string out(static_cast<std::size_t>(n), '\0');
  ::WideCharToMultiByte(CP_ACP, 0, text, -1, out.data(), n, nullptr, nullptr);
  out.resize(static_cast<std::size_t>(n - 1));  // without the terminating zero
  return out;
}

// A Win32 error as an error_code. The ones the harness tests for are given
// as their portable conditions (so that `ec == std::errc::file_exists`
// holds on every compiler); the rest keep the system's code and message.
std::error_code win32_error(DWORD code) {
  switch (code) {
    case ERROR_FILE_NOT_FOUND:
    case ERROR_PATH_NOT_FOUND:
    case ERROR_INVALID_NAME:
      return std::make_error_code(std::errc::no_such_file_or_directory);
    case ERROR_FILE_EXISTS:
    case ERROR_ALREADY_EXISTS:
      return std::make_error_code(std::errc::file_exists);
    case ERROR_ACCESS_DENIED:
    case ERROR_SHARING_VIOLATION:
      return std::make_error_code(std::errc::permission_denied);
    case ERROR_DISK_FULL:
    case ERROR_HANDLE_DISK_FULL:
      return std::make_error_code(std::errc::no_space_on_device);
    case ERROR_DIRECTORY:
      return std::make_error_code(std::errc::not_a_directory);
    default:
      return std::error_code(static_cast<int>(code), std::system_category());
  }
}

std::error_code last_error() { return win32_error(::GetLastError()); }

HANDLE handle_of(std::intptr_t h) { return reinterpret_cast<HANDLE>(h); }
std::intptr_t stored(HANDLE h) { return reinterpret_cast<std::intptr_t>(h); }
const std::intptr_t kNoHandle = stored(INVALID_HANDLE_VALUE);

// An environment variable, in the active code page. GetEnvironmentVariableW reads the
// process's environment, which _wputenv_s (below) keeps in step with the C
// runtime's copy; not getenv, whose text is in the ANSI code page, nor
// _wdupenv_s, which MinGW's msvcrt.dll lacks.
bool has_variable(const wchar_t* name, std::string* value = nullptr) {
  std::vector<wchar_t> text(256);
  for (;;) {
    ::SetLastError(ERROR_SUCCESS);
    const DWORD n = ::GetEnvironmentVariableW(name, text.data(), static_cast<DWORD>(text.size()));
    if (n == 0 && ::GetLastError() == ERROR_ENVVAR_NOT_FOUND) return false;
    if (n < text.size()) {  // fits (n == 0: set and empty)
      if (value) *value = narrow(text.data());
      return true;
    }
    text.resize(n);  // n: the size needed, with the terminating zero
  }
}

std::string variable(const wchar_t* name) {
  std::string value;
  has_variable(name, &value);
  return value;
}

// What an open handle is: a disk file or folder, a character device (NUL,
// CON, COM1) or a pipe (the nearest thing to a FIFO).
FileStatus status_of_handle(HANDLE h, std::error_code& ec) {
  FileStatus s;
  switch (::GetFileType(h)) {
    case FILE_TYPE_CHAR: s.kind = FileKind::device; return s;
    case FILE_TYPE_PIPE: s.kind = FileKind::fifo; return s;
    case FILE_TYPE_DISK: break;
    default: s.kind = FileKind::other; return s;
  }
  BY_HANDLE_FILE_INFORMATION info;
  if (!::GetFileInformationByHandle(h, &info)) {
    ec = last_error();
    return {};
  }
  if (info.dwFileAttributes & FILE_ATTRIBUTE_DIRECTORY) {
    s.kind = FileKind::directory;
  } else {
    s.kind = FileKind::regular;
    s.size = (static_cast<std::uint64_t>(info.nFileSizeHigh) << 32) | info.nFileSizeLow;
  }
  return s;
}

// Whether a reparse point is a link in the POSIX sense: a symbolic link or
// a junction (a folder's mount point). Other reparse points (OneDrive's
// placeholders, deduplicated files, app execution aliases) are the file
// they stand for.
bool is_link_reparse_point(const std::wstring& path) {
  WIN32_FIND_DATAW data;
  HANDLE find = ::FindFirstFileW(path.c_str(), &data);
  if (find == INVALID_HANDLE_VALUE) return false;
  ::FindClose(find);
  return (data.dwFileAttributes & FILE_ATTRIBUTE_REPARSE_POINT) &&
         (data.dwReserved0 == IO_REPARSE_TAG_SYMLINK || data.dwReserved0 == IO_REPARSE_TAG_MOUNT_POINT);
}

FileStatus open_and_query(const std::wstring& path, DWORD flags, std::error_code& ec) {
  // No access beyond the attributes, every sharing mode: querying never
  // stands in another program's way. FILE_FLAG_BACKUP_SEMANTICS lets a
  // folder be opened at all.
  HANDLE h = ::CreateFileW(path.c_str(), FILE_READ_ATTRIBUTES,
                           FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, nullptr, OPEN_EXISTING,
                           FILE_FLAG_BACKUP_SEMANTICS | flags, nullptr);
  if (h == INVALID_HANDLE_VALUE) {
    ec = last_error();
    return {};
  }
  ec.clear();
  FileStatus s = status_of_handle(h, ec);
  ::CloseHandle(h);
  return s;
}

}  // namespace

// ---- what is at a path ----------------------------------------------------------

FileStatus file_status(const std::string& path, std::error_code& ec) {
  // CreateFileW follows links, as stat() does.
  return open_and_query(wide(path), 0, ec);
}

FileStatus link_status(const std::string& path, std::error_code& ec) {
  const std::wstring w = wide(path);
  const DWORD attributes = ::GetFileAttributesW(w.c_str());
  if (attributes == INVALID_FILE_ATTRIBUTES) {
    ec = last_error();
    return {};
  }
  if ((attributes & FILE_ATTRIBUTE_REPARSE_POINT) && is_link_reparse_point(w)) {
    ec.clear();
    FileStatus s;
    s.kind = FileKind::symlink;
    return s;
  }
  // FILE_FLAG_OPEN_REPARSE_POINT: the entry itself, never what it points to.
  return open_and_query(w, FILE_FLAG_OPEN_REPARSE_POINT, ec);
}

// A name's longest component on NTFS, FAT32 and exFAT: 255 UTF-16 units.
// The harness counts the narrow name's bytes, which are never fewer, so it
// errs on the short side for names outside ASCII.
std::size_t max_file_name_length() { return 255; }

// ---- writing ----------------------------------------------------------------------

NewFile::~NewFile() {
  if (is_open()) close();
}

bool NewFile::is_open() const { return handle_ != kNoHandle; }

std::error_code NewFile::open(const std::string& path, unsigned /*posix_mode*/) {
  if (is_open()) close();
  // CREATE_NEW fails when anything is at the path (O_EXCL), and
  // FILE_FLAG_OPEN_REPARSE_POINT keeps a link there from being followed
  // (O_EXCL never follows one either). The handle is not inherited by
  // child processes (no SECURITY_ATTRIBUTES: O_CLOEXEC's equivalent). No
  // permission bits: the new file inherits its folder's ACL.
  HANDLE h = ::CreateFileW(wide(path).c_str(), GENERIC_WRITE, FILE_SHARE_READ | FILE_SHARE_DELETE, nullptr,
                           CREATE_NEW, FILE_ATTRIBUTE_NORMAL | FILE_FLAG_OPEN_REPARSE_POINT, nullptr);
  if (h == INVALID_HANDLE_VALUE) return last_error();
  handle_ = stored(h);
  return {};
}

std::error_code NewFile::write(const void* data, std::size_t size) {
  if (!is_open()) return std::make_error_code(std::errc::bad_file_descriptor);
  const auto* bytes = static_cast<const unsigned char*>(data);
  std::size_t done = 0;
  while (done < size) {
    // WriteFile takes a DWORD: at most 1 GiB a call.
    const DWORD piece = static_cast<DWORD>(std::min<std::size_t>(size - done, std::size_t{1} << 30));
    DWORD written = 0;
    if (!::WriteFile(handle_of(handle_), bytes + done, piece, &written, nullptr)) return last_error();
    if (written == 0) return std::make_error_code(std::errc::no_space_on_device);
    done += written;
  }
  return {};
}

// Windows files have ACLs, not mode bits; the new file already has its
// folder's inherited ACL, so there is nothing to set.
std::error_code NewFile::set_posix_mode(unsigned /*posix_mode*/) {
  if (!is_open()) return std::make_error_code(std::errc::bad_file_descriptor);
  return {};
}

std::error_code NewFile::close() {
  if (!is_open()) return {};
  HANDLE h = handle_of(handle_);
  handle_ = kNoHandle;
  // Neither side waits for the disk (no fsync() on POSIX, no
  // FlushFileBuffers here), so an error the disk reports only later is
  // seen on neither.
  if (!::CloseHandle(h)) return last_error();
  return {};
}

std::error_code replace_file(const std::string& from, const std::string& to) {
  // On one volume MOVEFILE_REPLACE_EXISTING is a rename of the directory
  // entry (FileRenameInformation with ReplaceIfExists): readers see the old
  // file or the new one. Unlike rename(), it fails (access denied) while
  // another program has `to` open without FILE_SHARE_DELETE; the caller
  // then reports the error and removes the temporary file. A link at `to`
  // is replaced itself, as on POSIX.
  if (!::MoveFileExW(wide(from).c_str(), wide(to).c_str(), MOVEFILE_REPLACE_EXISTING))
    return last_error();
  return {};
}

std::error_code remove_file(const std::string& path) {
  if (!::DeleteFileW(wide(path).c_str())) {
    const DWORD code = ::GetLastError();
    if (code == ERROR_FILE_NOT_FOUND || code == ERROR_PATH_NOT_FOUND) return {};
    return win32_error(code);
  }
  return {};
}

// chmod 0700 has no equivalent to apply: the folders this is used on lie
// under %TEMP% (in the user's profile), whose inherited ACL already admits
// only the user, SYSTEM and administrators. Nothing is changed.
void restrict_folder_to_user(const std::string& /*path*/) {}

// ---- locks -------------------------------------------------------------------------

FileLock::FileLock(const std::string& path) : path_(path), handle_(kNoHandle) {
  // OPEN_ALWAYS creates the file when missing; FILE_FLAG_OPEN_REPARSE_POINT
  // opens a link itself rather than what it names (O_NOFOLLOW), and the
  // check below then refuses it, as it refuses a folder or a device.
  HANDLE h = ::CreateFileW(wide(path).c_str(), GENERIC_READ | GENERIC_WRITE,
                           FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, nullptr, OPEN_ALWAYS,
                           FILE_ATTRIBUTE_NORMAL | FILE_FLAG_OPEN_REPARSE_POINT, nullptr);
  if (h == INVALID_HANDLE_VALUE) return;
  BY_HANDLE_FILE_INFORMATION info;
  if (::GetFileType(h) != FILE_TYPE_DISK || !::GetFileInformationByHandle(h, &info) ||
      (info.dwFileAttributes & (FILE_ATTRIBUTE_DIRECTORY | FILE_ATTRIBUTE_REPARSE_POINT))) {
    ::CloseHandle(h);
    return;
  }
  handle_ = stored(h);
}

FileLock::~FileLock() {
  if (handle_ != kNoHandle) {
    unlock();
    ::CloseHandle(handle_of(handle_));  // closing would release the lock too, but later
  }
}

bool FileLock::opened() const { return handle_ != kNoHandle; }

FileLock::Try FileLock::try_lock() {
  if (handle_ == kNoHandle) return Try::unavailable;
  if (held_) return Try::held;
  // The whole file's range, exclusive, without waiting. Windows' byte-range
  // locks are mandatory where flock()'s are advisory, which changes nothing
  // here: nobody reads or writes a lock file.
  OVERLAPPED at = {};
  if (::LockFileEx(handle_of(handle_), LOCKFILE_EXCLUSIVE_LOCK | LOCKFILE_FAIL_IMMEDIATELY, 0, MAXDWORD, MAXDWORD,
                   &at)) {
    held_ = true;
    return Try::held;
  }
  return ::GetLastError() == ERROR_LOCK_VIOLATION ? Try::busy : Try::unavailable;
}

void FileLock::unlock() {
  if (handle_ != kNoHandle && held_) {
    OVERLAPPED at = {};
    ::UnlockFileEx(handle_of(handle_), 0, MAXDWORD, MAXDWORD, &at);
  }
  held_ = false;
}

// ---- the user, the process, the terminal -----------------------------------------

std::string user_cache_root() {
  if (const std::string xdg = variable(L"XDG_CACHE_HOME"); !xdg.empty()) return xdg;
  return variable(L"LOCALAPPDATA");
}

std::string user_cache_root_unset() { return "neither XDG_CACHE_HOME nor LOCALAPPDATA is set"; }

std::string user_tag() {
  // Windows has no numeric user id; the user's SID is the stable,
  // file-name-safe equivalent ("S-1-5-21-...").
  std::string tag;
  HANDLE token = nullptr;
  if (::OpenProcessToken(::GetCurrentProcess(), TOKEN_QUERY, &token)) {
    DWORD size = 0;
    ::GetTokenInformation(token, TokenUser, nullptr, 0, &size);
    std::vector<unsigned char> buffer(size);
    if (size > 0 && ::GetTokenInformation(token, TokenUser, buffer.data(), size, &size)) {
      const auto* user = reinterpret_cast<const TOKEN_USER*>(buffer.data());
      wchar_t* text = nullptr;
      if (::ConvertSidToStringSidW(user->User.Sid, &text)) {
        tag = narrow(text);
        ::LocalFree(text);
      }
    }
    ::CloseHandle(token);
  }
  return tag.empty() ? "user" : tag;
}

long process_id() { return static_cast<long>(::GetCurrentProcessId()); }

// A console is a terminal; a pipe or a file is not, and neither is MSYS2's
// or Cygwin's terminal (mintty), which programs see as a pipe: there the
// progress lines are written as to a log.
bool stdout_is_terminal() { return ::_isatty(::_fileno(stdout)) != 0; }
bool stderr_is_terminal() { return ::_isatty(::_fileno(stderr)) != 0; }

// gmtime_s takes its arguments the other way round from C11's gmtime_s.
std::tm utc_time(std::time_t t) {
  std::tm tm{};
  ::gmtime_s(&tm, &t);
  return tm;
}

std::uint64_t physical_memory_bytes() {
  MEMORYSTATUSEX status;
  status.dwLength = sizeof status;
  if (!::GlobalMemoryStatusEx(&status)) return 0;
  return status.ullTotalPhys;
}

// _wputenv_s changes the C runtime's environment, which getenv() reads,
// and the process's own (SetEnvironmentVariableW), which child processes
// inherit. A DLL built with another C runtime that already copied the
// environment at its start does not see the change, so this is called
// before the first OpenCL call, as on POSIX.
void set_environment(const std::string& name, const std::string& value, bool overwrite) {
  const std::wstring w = wide(name);
  if (!overwrite && has_variable(w.c_str())) return;
  ::_wputenv_s(w.c_str(), wide(value).c_str());
}

// An empty value removes the variable on Windows (there are no empty
// variables there).
void unset_environment(const std::string& name) { ::_wputenv_s(wide(name).c_str(), L""); }

}  // namespace conv

#endif  // _WIN32
