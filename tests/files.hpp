// Scratch files for tests: a fresh temporary folder per process, removed at exit.
#pragma once
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace conv::test {

std::string scratch_dir();
std::string write_scratch(const std::string& name, const std::string& bytes);
std::string write_scratch(const std::string& name, const std::vector<std::uint8_t>& bytes);
std::vector<std::uint8_t> read_bytes(const std::string& path);
std::string read_text(const std::string& path);  // the whole file, "" when it cannot be read
bool file_exists(const std::string& path);
// `text` as the whole of the file at `path`, its folders made first.
void write_file(const std::filesystem::path& path, const std::string& text);

// XDG_CACHE_HOME pointed at a fresh folder, NAME under the scratch folder,
// for the scope: the store of tuned winners (and the other caches) start
// empty, and the user's own are left alone.
class ScratchCache {
 public:
  explicit ScratchCache(const std::string& name);
  ~ScratchCache();
  ScratchCache(const ScratchCache&) = delete;
  ScratchCache& operator=(const ScratchCache&) = delete;
  std::string path;

 private:
  bool had_ = false;
  std::string old_;
};

}  // namespace conv::test
