// Building an OpenCL program from its source.
#pragma once
#include <string>

#include "common/core/cl.hpp"

namespace conv {

// Builds `source` for one device. On failure throws BuildError whose message
// names `label` and carries the compiler's full log.
cl::Program build_program(const cl::Context& context, const cl::Device& device,
                          const std::string& source, const std::string& options,
                          const std::string& label);

}  // namespace conv
