// Built OpenCL programs cached as device binaries on disk, so that a second
// run skips the compiler ("warm" build). The key hashes everything a binary
// depends on (source, build options, platform, device, driver), and the
// entry repeats the whole key, so a stale or colliding file is never used.
// DeviceContext::program reads and writes it where a program turns it on
// (DeviceContext::use_binary_cache: the histogram does, the steps do not);
// the histogram's --breakdown times its parts one by one.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/core/cl.hpp"

namespace conv {

class ProgramCache {
 public:
  // A cache in `folder`; an empty folder means no cache at all.
  explicit ProgramCache(std::string folder = "") : folder_(std::move(folder)) {}

  // cache_dir("clconv/programs"): $XDG_CACHE_HOME/clconv/programs, else
  // ~/.cache/clconv/programs; none when neither variable is set, when
  // `disabled` (--no-binary-cache) or when CLCONV_NO_BINARY_CACHE is set.
  static ProgramCache for_user(bool disabled);
  static bool disabled_by_environment();

  bool enabled() const { return !folder_.empty(); }
  const std::string& folder() const { return folder_; }

  // Everything the binary depends on, as one text, and its digest (the file name).
  static std::string key_text(const cl::Device& device, const std::string& source,
                              const std::string& options);
  static std::string key(const cl::Device& device, const std::string& source,
                         const std::string& options);
  std::string path_for(const std::string& key) const;

  // Always compiles from source (a cold build, build_program); throws
  // BuildError with the log.
  static cl::Program build_cold(const cl::Context& context, const cl::Device& device,
                                const std::string& source, const std::string& options,
                                const std::string& label);
  // The cached binary, built for this device, or nullopt with the reason in
  // `why` (no entry, stale, corrupt, refused by the driver, with the
  // driver's build log when it has one). Never throws.
  std::optional<cl::Program> load(const cl::Context& context, const cl::Device& device,
                                  const std::string& source, const std::string& options,
                                  std::string* why = nullptr) const;
  // Saves the program's binary; a cache that cannot be written is skipped.
  void store(const cl::Program& program, const cl::Device& device, const std::string& source,
             const std::string& options) const;

  struct Built {
    cl::Program program;
    bool from_cache = false;
  };
  // load(), else build_cold() and store().
  Built build(const cl::Context& context, const cl::Device& device, const std::string& source,
              const std::string& options, const std::string& label) const;

  // The file format, public for the tests: magic, key, binary, checksum.
  static std::vector<std::uint8_t> encode_entry(const std::string& key_text,
                                                const std::vector<unsigned char>& binary);

 private:
  std::string folder_;
};

}  // namespace conv
