// The device a step runs on: its context, its profiling queue, its facts and
// the programs built for it (choosing one: machinery/device_choice.hpp).
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "common/core/cl.hpp"

namespace conv {

class ProgramCache;   // common/machinery/program_cache.hpp
struct DeviceChoice;  // common/machinery/device_choice.hpp

// The facts the steps and the reports need, read once.
struct DeviceFacts {
  std::string name, vendor, platform;
  std::string driver, version;  // CL_DRIVER_VERSION, CL_DEVICE_VERSION
  bool is_gpu = false;
  std::uint64_t global_mem_bytes = 0, max_alloc_bytes = 0, local_mem_bytes = 0, constant_mem_bytes = 0;
  std::size_t base_addr_align_bytes = 128;  // CL_DEVICE_MEM_BASE_ADDR_ALIGN: sub-buffer origins
  std::size_t max_work_group = 0;
  std::vector<std::size_t> max_work_item_sizes;
  unsigned compute_units = 0, clock_mhz = 0;
};

struct DeviceEntry {  // one listed device with its place in the listing
  int platform_index = 0, device_index = 0;  // the device's index within its platform
  int global_index = 0;                      // across all platforms, in listing order
  cl::Platform platform;
  cl::Device device;
};

DeviceFacts read_facts(const cl::Device& device);

// A context, an in-order profiling queue and the facts of one device, plus a
// cache of built programs so that a sweep builds each variant once.
class DeviceContext {
 public:
  // The device `choice` names (choose_device, machinery/device_choice.cpp).
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

  // From now on program() also loads from this binary cache on disk, and
  // stores what it builds there; the histogram's (machinery/program_cache.cpp).
  void use_binary_cache(ProgramCache cache);

  // Every program built so far, for tools that inspect them (kernel-info).
  struct Built {
    std::string label, source, options;
    cl::Program program;
  };
  const std::vector<Built>& built() const { return built_; }

  // How program() builds (source, options, label): build_program unless the
  // machinery set another (the binary cache, PoCL's cache folder's checks).
  using Builder = std::function<cl::Program(const std::string&, const std::string&, const std::string&)>;
  void set_builder(Builder builder) { build_ = std::move(builder); }

 private:
  std::vector<Built> built_;
  cl::Context context_;
  cl::Device device_;
  cl::CommandQueue queue_;
  DeviceFacts facts_;
  std::map<std::string, cl::Program> programs_;
  Builder build_;
};

}  // namespace conv
