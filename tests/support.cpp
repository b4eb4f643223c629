#include "tests/support.hpp"


#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>
#include <sstream>
#include <stdlib.h>

#include "common/errors.hpp"
#include "common/parse.hpp"
#include "common/program.hpp"

namespace conv::test {

DeviceContext& device() {
  static std::unique_ptr<DeviceContext> context = [] {
    DeviceChoice choice;
    if (const char* p = std::getenv("CLCONV_PLATFORM")) choice.platform = p;
    if (const char* d = std::getenv("CLCONV_DEVICE")) choice.device = d;
    if (const char* t = std::getenv("CLCONV_DEVICE_TYPE")) choice.type = t;
    return std::make_unique<DeviceContext>(choice);
  }();
  return *context;
}

std::uint32_t run_seed() {
  static const std::uint32_t seed = [] {
    if (const char* s = std::getenv("CLCONV_TEST_SEED"); s && *s)
      return static_cast<std::uint32_t>(std::strtoul(s, nullptr, 10));
    return static_cast<std::uint32_t>(std::random_device{}());
  }();
  return seed;
}

std::string seed_note() {
  const std::string s = std::to_string(run_seed());
  return "seed " + s + " (rerun with CLCONV_TEST_SEED=" + s + ")";
}

Image random_image(int width, int height, std::mt19937& rng) {
  std::uniform_real_distribution<float> dist(0.0f, 1.0f);
  Image img(width, height);
  for (auto& v : img.pixels) v = dist(rng);
  return img;
}

Filter random_filter(int width, std::mt19937& rng) {
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  Filter f;
  f.width = width;
  f.name = "random:" + std::to_string(width);
  f.weights.resize(static_cast<std::size_t>(width) * width);
  for (auto& w : f.weights) w = dist(rng);
  return f;
}

// ---- coursework: a student's kernel in place of the embedded one ------------

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
    std::cerr << "conformance: grading " << k.path << " (" << variable
              << ") instead of the embedded kernel" << std::endl;
  } catch (const std::exception& e) {
    k.error = variable + "=" + value + ": " + e.what() +
              (path.is_relative() ? std::string(" (looked in ") + fs::current_path(ec).string() +
                                        " and " + CLCONV_SOURCE_DIR + ")"
                                  : std::string());
    std::cerr << "conformance: cannot grade: " << k.error << std::endl;
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

}  // namespace conv::test

// ---- scratch files ----------------------------------------------------------
#include <filesystem>
#include <fstream>

#include "tests/files.hpp"

namespace conv::test {

std::string scratch_dir() {
  static struct Dir {
    std::string path;
    Dir() {
      std::string templ = (std::filesystem::temp_directory_path() / "clconv-test-XXXXXX").string();
      path = mkdtemp(templ.data()) ? templ : "";
    }
    ~Dir() {
      std::error_code ec;
      if (!path.empty()) std::filesystem::remove_all(path, ec);
    }
  } dir;
  return dir.path;
}

std::string write_scratch(const std::string& name, const std::vector<std::uint8_t>& bytes) {
  const std::string path = scratch_dir() + "/" + name;
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  return path;
}

std::string write_scratch(const std::string& name, const std::string& bytes) {
  return write_scratch(name, std::vector<std::uint8_t>(bytes.begin(), bytes.end()));
}

std::vector<std::uint8_t> read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::vector<std::uint8_t>(std::istreambuf_iterator<char>(in), {});
}

std::string read_text(const std::string& path) {
  const auto bytes = read_bytes(path);
  return std::string(bytes.begin(), bytes.end());
}

bool file_exists(const std::string& path) { return std::filesystem::exists(path); }

std::vector<std::string> csv_fields(const std::string& line) {
  std::vector<std::string> out;
  std::stringstream in(line);
  std::string field;
  while (std::getline(in, field, ',')) out.push_back(field);
  return out;
}

}  // namespace conv::test
