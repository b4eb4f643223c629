// Finding, choosing and describing an OpenCL device.
#pragma once
#include <cstddef>
#include <cstdint>
#include <iosfwd>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "common/cl.hpp"
#include "common/program_cache.hpp"

namespace conv {

// What the user asked for on the command line (or through CLCONV_PLATFORM,
// CLCONV_DEVICE and CLCONV_DEVICE_TYPE). Empty strings mean "not given".
struct DeviceChoice {
  std::string platform;          // index or case-insensitive name substring
  std::string device;            // index or case-insensitive name substring
  std::string type = "all";      // cpu | gpu | all
};

// The facts the steps and the reports need, read once.
struct DeviceFacts {
  std::string name;
  std::string vendor;
  std::string platform;
  std::string driver;            // CL_DRIVER_VERSION
  std::string version;           // CL_DEVICE_VERSION
  bool is_gpu = false;
  std::uint64_t global_mem_bytes = 0;
  std::uint64_t max_alloc_bytes = 0;
  std::uint64_t local_mem_bytes = 0;
  std::uint64_t constant_mem_bytes = 0;
  std::size_t base_addr_align_bytes = 128;  // CL_DEVICE_MEM_BASE_ADDR_ALIGN: sub-buffer origins
  std::size_t max_work_group = 0;
  std::vector<std::size_t> max_work_item_sizes;
  unsigned compute_units = 0;
  unsigned clock_mhz = 0;
};

// One listed device with its place in the listing.
struct DeviceEntry {
  int platform_index = 0;
  int device_index = 0;  // within its platform
  int global_index = 0;  // across all platforms, in listing order
  cl::Platform platform;
  cl::Device device;
};

// Every device of every platform, in a stable order. Returns an empty list
// (not an error) when no OpenCL platform is installed.
std::vector<DeviceEntry> enumerate_devices();

// Prints the listing used by --list-devices.
void print_device_list(std::ostream& out);

// Applies a DeviceChoice; throws Error naming the problem (index out of
// range, no match for a name, no device of that type). Without a --device,
// the first GPU wins, then the first device of any kind.
DeviceEntry choose_device(const DeviceChoice& choice);

DeviceFacts read_facts(const cl::Device& device);

// A context, an in-order profiling queue and the facts of one device, plus a
// cache of built programs so that a sweep builds each variant once (in
// memory; on disk too where use_binary_cache was called).
class DeviceContext {
 public:
  explicit DeviceContext(const DeviceChoice& choice);
  explicit DeviceContext(const DeviceEntry& entry);

  const cl::Context& context() const { return context_; }
  const cl::Device& device() const { return device_; }
  cl::CommandQueue& queue() { return queue_; }
  const DeviceFacts& facts() const { return facts_; }

  // Builds (or returns the already built) program for this source and
  // these options. Throws BuildError with the full log on failure.
  cl::Program program(const std::string& source, const std::string& options,
                      const std::string& label);

  // From now on program() also loads a program it has not built yet from
  // this binary cache on disk, and stores what it builds there
  // (common/program_cache.hpp). Off unless called: the steps compile from
  // source; the histogram turns it on (its --no-binary-cache turns it off).
  void use_binary_cache(ProgramCache cache) { binary_cache_ = std::move(cache); }

  // Every program built so far, for tools that inspect them (kernel-info).
  struct Built {
    std::string label, source, options;
    cl::Program program;
  };
  const std::vector<Built>& built() const { return built_; }

 private:
  std::vector<Built> built_;
  cl::Context context_;
  cl::Device device_;
  cl::CommandQueue queue_;
  DeviceFacts facts_;
  std::map<std::string, cl::Program> programs_;
  ProgramCache binary_cache_;  // none unless use_binary_cache() was called
};

}  // namespace conv
