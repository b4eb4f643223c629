// Launch's buffers, poison and margins are the guard bands'
// (common/machinery/guard.cpp); here is what a launcher calls beside them.
#include "common/core/launch.hpp"

#include "common/core/errors.hpp"

namespace conv {

cl::Kernel make_kernel(const cl::Program& program, const std::string& name,
                       const std::string& label) {
  try {
    return cl::Kernel(program, name.c_str());
  } catch (const cl::Error& e) {
    throw Error(label + ": no kernel named '" + name + "' (" + cl_error_name(e.err()) + ")");
  }
}

std::string shape_text(const cl::NDRange& range) {
  std::string text = std::to_string(range[0]);
  for (cl::size_type d = 1; d < range.dimensions(); ++d) text += "x" + std::to_string(range[d]);
  return text;
}

}  // namespace conv
