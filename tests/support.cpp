#include "tests/support.hpp"

#include <cstdlib>
#include <sstream>
#include <stdlib.h>

namespace conv::test {

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

}  // namespace conv::test

// ---- scratch files ----------------------------------------------------------
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "common/machinery/platform/files.hpp"
#include "tests/files.hpp"

namespace conv::test {

std::string scratch_dir() {
  // Removed at exit by the process that made it, not by a forked child
  // (ChildSpec::body) that ends with exit() too.
  static struct Dir {
    std::string path;
    long owner = conv::process_id();
    Dir() {
      std::string templ = (std::filesystem::temp_directory_path() / "clconv-test-XXXXXX").string();
      path = mkdtemp(templ.data()) ? templ : "";
    }
    ~Dir() {
      std::error_code ec;
      if (!path.empty() && conv::process_id() == owner) std::filesystem::remove_all(path, ec);
    }
  } dir;
  return dir.path;
}

ScratchCache::ScratchCache(const std::string& name) : path(scratch_dir() + "/" + name) {
  if (const char* v = std::getenv("XDG_CACHE_HOME")) had_ = true, old_ = v;
  std::error_code ec;
  std::filesystem::remove_all(path, ec);
  std::filesystem::create_directories(path + "/clconv");
  conv::set_environment("XDG_CACHE_HOME", path);
}

ScratchCache::~ScratchCache() {
  if (had_)
    conv::set_environment("XDG_CACHE_HOME", old_);
  else
    conv::unset_environment("XDG_CACHE_HOME");
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

void write_file(const std::filesystem::path& path, const std::string& text) {
  std::filesystem::create_directories(path.parent_path());
  std::ofstream(path, std::ios::binary) << text;
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
