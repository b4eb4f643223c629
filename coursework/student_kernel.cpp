#include "coursework/student_kernel.hpp"

#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <map>

#include "common/core/errors.hpp"
#include "common/core/program.hpp"
#include "common/machinery/files.hpp"

namespace conv {

std::string kernel_variable(const std::string& step_name) {
  std::size_t end = 4;
  while (end < step_name.size() && std::isdigit(static_cast<unsigned char>(step_name[end]))) ++end;
  if (step_name.compare(0, 4, "step") != 0 || end == 4) return "";
  return "CLCONV_KERNEL_STEP" + step_name.substr(4, end - 4);
}

namespace {

struct StudentKernel {
  std::string path, source, error;
};

// The file named by `variable`, read once per process.
const StudentKernel& student_kernel(const std::string& variable, const std::string& value) {
  static std::map<std::string, StudentKernel> cache;
  auto found = cache.find(variable);
  if (found != cache.end()) return found->second;
  StudentKernel k;
  namespace fs = std::filesystem;
  fs::path path(value);
  std::error_code ec;
  if (path.is_relative() && !fs::exists(path, ec) && fs::exists(fs::path(CLCONV_SOURCE_DIR) / path, ec))
    path = fs::path(CLCONV_SOURCE_DIR) / path;
  k.path = fs::absolute(path, ec).lexically_normal().string();
  if (k.path.empty()) k.path = value;
  try {
    k.source = read_text_file(k.path);
    std::cerr << "conformance: grading " << one_line(k.path) << " (" << variable
              << ") instead of the embedded kernel" << std::endl;
  } catch (const std::exception& e) {
    k.error = variable + "=" + value + ": " + e.what() +
              (path.is_relative() ? std::string(" (looked in ") + fs::current_path(ec).string() +
                                        " and " + CLCONV_SOURCE_DIR + ")"
                                  : std::string());
    std::cerr << "conformance: cannot grade: " << one_line(k.error) << std::endl;
  }
  return cache.emplace(variable, std::move(k)).first->second;
}

}  // namespace

void use_student_kernel(const std::string& step_name, RunOptions& options) {
  const std::string variable = kernel_variable(step_name);
  const char* value = variable.empty() ? nullptr : std::getenv(variable.c_str());
  if (!value) return;
  if (!*value) throw Error(variable + " is set but empty: name the kernel file to grade");
  const StudentKernel& k = student_kernel(variable, value);
  if (!k.error.empty()) throw Error(k.error);
  options.kernel_source = k.source;
  options.kernel_label = k.path;
}

}  // namespace conv
