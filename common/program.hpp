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

// Reads a whole text file (a kernel given with --kernel). Throws Error naming
// the file and the reason.
std::string read_text_file(const std::string& path);

}  // namespace conv
