#include "tests/support.hpp"

#include <cstdlib>
#include <memory>
#include <stdlib.h>

#include "common/parse.hpp"

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

bool file_exists(const std::string& path) { return std::filesystem::exists(path); }

}  // namespace conv::test
