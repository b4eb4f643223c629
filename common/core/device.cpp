#include "common/core/device.hpp"

#include <cctype>

#include "common/core/program.hpp"
#include "common/core/run_step.hpp"
#include "common/core/text.hpp"

namespace conv {
DeviceFacts read_facts(const cl::Device& d) {
  DeviceFacts f;
  f.name = trim(d.getInfo<CL_DEVICE_NAME>());
  f.vendor = trim(d.getInfo<CL_DEVICE_VENDOR>());
  f.platform = trim(cl::Platform(d.getInfo<CL_DEVICE_PLATFORM>()).getInfo<CL_PLATFORM_NAME>());
  f.driver = trim(d.getInfo<CL_DRIVER_VERSION>());
  f.version = trim(d.getInfo<CL_DEVICE_VERSION>());
  f.is_gpu = (d.getInfo<CL_DEVICE_TYPE>() & CL_DEVICE_TYPE_GPU) != 0;
  f.global_mem_bytes = d.getInfo<CL_DEVICE_GLOBAL_MEM_SIZE>();
  f.max_alloc_bytes = d.getInfo<CL_DEVICE_MAX_MEM_ALLOC_SIZE>();
  f.local_mem_bytes = d.getInfo<CL_DEVICE_LOCAL_MEM_SIZE>();
  f.constant_mem_bytes = d.getInfo<CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE>();
  f.base_addr_align_bytes = d.getInfo<CL_DEVICE_MEM_BASE_ADDR_ALIGN>() / 8;
  f.max_work_group = d.getInfo<CL_DEVICE_MAX_WORK_GROUP_SIZE>();
  f.max_work_item_sizes = d.getInfo<CL_DEVICE_MAX_WORK_ITEM_SIZES>();
  f.compute_units = d.getInfo<CL_DEVICE_MAX_COMPUTE_UNITS>();
  f.clock_mhz = d.getInfo<CL_DEVICE_MAX_CLOCK_FREQUENCY>();
  return f;
}

DeviceContext::DeviceContext(const DeviceEntry& entry) : device_(entry.device) {
  cl_context_properties props[] = {
      CL_CONTEXT_PLATFORM, reinterpret_cast<cl_context_properties>(entry.platform()), 0};
  context_ = cl::Context(device_, props);
  queue_ = cl::CommandQueue(context_, device_, CL_QUEUE_PROFILING_ENABLE);
  facts_ = read_facts(device_);
}

cl::Program DeviceContext::program(const std::string& source, const std::string& options,
                                   const std::string& label) {
  std::string key = options + '\n' + source;
  auto it = programs_.find(key);
  if (it != programs_.end()) return it->second;
  const PhaseScope building(KernelPhase::building);  // for a crash's or a timeout's line
  // PoCL's compiler prints "N warnings generated." on stderr, unasked, for
  // each `#pragma unroll` its optimizer could not honour: remarks about a
  // hint written for GPUs, in the middle of a run's output. OpenCL's -w
  // keeps them out there; an error still fails the build with its log,
  // and kernel-info prints a kernel's warnings.
  const std::string built = facts_.platform.find("Portable Computing Language") == std::string::npos ? options
                            : options.empty() ? "-w" : options + " -w";
  cl::Program p = build_ ? build_(source, built, label) : build_program(context_, device_, source, built, label);
  programs_.emplace(key, p);
  built_.push_back({label, source, options, p});
  return p;
}

}  // namespace conv
