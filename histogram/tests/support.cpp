#include "histogram/tests/support.hpp"

#include <fcntl.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>

#include "common/device.hpp"

namespace conv::histogram::test {
namespace {

DeviceContext& context() {
  static std::unique_ptr<DeviceContext> device = [] {
    DeviceChoice choice;
    if (const char* p = std::getenv("CLCONV_PLATFORM")) choice.platform = p;
    if (const char* d = std::getenv("CLCONV_DEVICE")) choice.device = d;
    if (const char* t = std::getenv("CLCONV_DEVICE_TYPE")) choice.type = t;
    return std::make_unique<DeviceContext>(choice);
  }();
  return *device;
}

}  // namespace

Cl& cl() {
  static Cl handles{context().context(), context().device(), context().queue()};
  return handles;
}

const DeviceFacts& facts() { return context().facts(); }

Programs& programs() {
  static Programs built(cl(), ProgramCache());
  return built;
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

RgbImage random_image(int width, int height, std::mt19937& rng) {
  RgbImage image;
  image.width = width;
  image.height = height;
  image.rgb.resize(image.pixels() * 3);
  for (auto& b : image.rgb) b = static_cast<std::uint8_t>(rng() >> 24);
  return image;
}

std::string scratch_dir() {
  static struct Dir {
    std::string path;
    Dir() {
      std::string templ =
          (std::filesystem::temp_directory_path() / "clconv-histogram-XXXXXX").string();
      path = mkdtemp(templ.data()) ? templ : "";
    }
    ~Dir() {
      std::error_code ec;
      if (!path.empty()) std::filesystem::remove_all(path, ec);
    }
  } dir;
  return dir.path;
}

std::string write_scratch(const std::string& name, const std::string& bytes) {
  const std::string path = scratch_dir() + "/" + name;
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
  return path;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

int Outcome::err_lines() const {
  return static_cast<int>(std::count(err.begin(), err.end(), '\n'));
}

Outcome run_histogram(const std::vector<std::string>& args,
                      const std::vector<std::pair<std::string, std::string>>& env) {
  const std::string exe = std::string(CLCONV_BIN_DIR) + "/histogram";
  const std::string out = scratch_dir() + "/stdout", err = scratch_dir() + "/stderr";
  const pid_t pid = fork();
  if (pid == 0) {
    const int o = open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    const int e = open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    const int in = open("/dev/null", O_RDONLY);
    dup2(o, 1);
    dup2(e, 2);
    dup2(in, 0);
    for (const auto& [name, value] : env) setenv(name.c_str(), value.c_str(), 1);
    std::vector<std::string> copies(args);
    std::vector<char*> argv{const_cast<char*>(exe.c_str())};
    for (auto& a : copies) argv.push_back(a.data());
    argv.push_back(nullptr);
    execv(exe.c_str(), argv.data());
    _exit(127);
  }
  int wstatus = 0;
  waitpid(pid, &wstatus, 0);
  Outcome r;
  if (WIFEXITED(wstatus)) r.status = WEXITSTATUS(wstatus);
  r.out = read_file(out);
  r.err = read_file(err);
  return r;
}

}  // namespace conv::histogram::test
