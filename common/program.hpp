// Building OpenCL programs, and where their source comes from.
#pragma once
#include <string>

#include "common/cl.hpp"

namespace conv {

// Builds `source` for one device. On failure throws BuildError whose message
// names `label` and carries the compiler's full log.
cl::Program build_program(const cl::Context& context, const cl::Device& device,
                          const std::string& source, const std::string& options,
                          const std::string& label);

// Throws Error naming `path` unless it is a regular file (or a link to one):
// a folder, a FIFO or a device would block a read or never end. `what` says
// what was expected ("an image file").
void require_regular_file(const std::string& path, const std::string& what);

// Reads a whole text file (a kernel given with --kernel). Throws Error naming
// the file and the reason.
std::string read_text_file(const std::string& path);

}  // namespace conv
