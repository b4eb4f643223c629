// Reading the files a user names: a kernel (--kernel), a filter
// (file:PATH), an image.
#pragma once
#include <string>

namespace conv {

// Throws Error naming `path` unless it is a regular file (or a link to one):
// a folder, a FIFO or a device would block a read or never end. `what` says
// what was expected ("an image file").
void require_regular_file(const std::string& path, const std::string& what);

// Reads a whole text file (a kernel given with --kernel). Throws Error naming
// the file and the reason.
std::string read_text_file(const std::string& path);

}  // namespace conv
