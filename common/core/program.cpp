#include "common/core/program.hpp"

#include "common/core/errors.hpp"

namespace conv {

cl::Program build_program(const cl::Context& context, const cl::Device& device,
                          const std::string& source, const std::string& options,
                          const std::string& label) {
  cl::Program program(context, source);
  try {
    program.build(std::vector<cl::Device>{device}, options.c_str());
  } catch (const cl::BuildError& e) {  // CLHPP's: the compiler's log for each device
    std::string log;
    for (const auto& [built_for, text] : e.getBuildLog()) log += text;
    while (!log.empty() && (log.back() == '\n' || log.back() == '\0')) log.pop_back();
    if (log.empty()) log = "(the driver returned no build log)";
    throw BuildError("kernel " + label + " failed to build (" + cl_error_name(e.err()) +
                     (options.empty() ? "" : ", options: " + options) + "); build log:\n" + log);
  }
  return program;
}

}  // namespace conv
