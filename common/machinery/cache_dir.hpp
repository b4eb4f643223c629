// Where the project and the drivers it starts keep files between runs: the
// binary cache of built programs (common/machinery/program_cache.hpp), the measured
// limits (common/machinery/roofline.hpp) and PoCL's compiled kernels (common/core/device.cpp).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace conv {

// The folder `sub` of the user's cache folder: $XDG_CACHE_HOME/sub, else
// $HOME/.cache/sub ($HOME/Library/Caches/sub on macOS, %LOCALAPPDATA%/sub
// on Windows: user_cache_root(), common/machinery/platform/files.hpp); an
// empty variable counts as unset. "" when none is set: the caller then
// keeps no cache. Creates nothing.
std::string cache_dir(const std::string& sub);

// Whether a cache may read or replace `path`: true for a regular file or
// nothing there; false for a symbolic link (a cache never reads or writes
// through one: a link to /etc/passwd must not be replaced), a folder, a
// FIFO (a read would block for good), a device or a socket.
bool cache_entry_usable(const std::string& path);

// Writes a cache file: `bytes` into a new file in the cache folder, renamed
// over `path`, so only a file this program created is ever written and a
// reader never sees half a file. Nothing is written where
// cache_entry_usable(path) is false. False when nothing was written (a
// cache that cannot be written only costs work next time).
bool write_cache_file(const std::string& path, const std::vector<std::uint8_t>& bytes);

}  // namespace conv
