#include "common/program.hpp"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "common/errors.hpp"

namespace conv {

cl::Program build_program(const cl::Context& context, const cl::Device& device,
                          const std::string& source, const std::string& options,
                          const std::string& label) {
  cl::Program program(context, source);
  try {
    program.build(std::vector<cl::Device>{device}, options.c_str());
  } catch (const cl::Error& e) {
    std::string log;
    try {
      log = program.getBuildInfo<CL_PROGRAM_BUILD_LOG>(device);
    } catch (const cl::Error&) {
      log = "(the driver returned no build log)";
    }
    while (!log.empty() && (log.back() == '\n' || log.back() == '\0')) log.pop_back();
    throw BuildError("kernel " + label + " failed to build (" + cl_error_name(e.err()) +
                     (options.empty() ? "" : ", options: " + options) + "); build log:\n" + log);
  }
  return program;
}

std::string read_text_file(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    throw Error(path + ": is a directory, not a file");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(path + ": cannot open: " + std::strerror(errno));
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad()) throw Error(path + ": read failed");
  return ss.str();
}

}  // namespace conv
