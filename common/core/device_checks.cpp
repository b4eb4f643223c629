#include "common/core/device_checks.hpp"

#include <algorithm>

#include "common/core/errors.hpp"

namespace conv {

void check_buffer_size(DeviceContext& device, std::size_t bytes, const std::string& what) {
  const auto& f = device.facts();
  if (bytes > f.max_alloc_bytes)
    throw Error(what + " needs a buffer of " + std::to_string(bytes) + " bytes, over " + f.name +
                "'s limit of " + std::to_string(f.max_alloc_bytes) +
                " bytes (CL_DEVICE_MAX_MEM_ALLOC_SIZE)");
}

void check_private_memory(DeviceContext& device, const cl::Kernel& kernel, std::size_t items,
                          const std::string& what, std::size_t estimate) {
  constexpr std::size_t kCpuPrivateBytesPerGroup = std::size_t{4} << 20;
  if (device.facts().is_gpu) return;
  const std::size_t per_item = std::max<std::size_t>(
      estimate, kernel.getWorkGroupInfo<CL_KERNEL_PRIVATE_MEM_SIZE>(device.device()));
  if (per_item * items > kCpuPrivateBytesPerGroup)
    throw Error(what + ": " + std::to_string(items) + " work-items x " + std::to_string(per_item) +
                " bytes of private memory = " +
                std::to_string(per_item * items) + " bytes, over the " +
                std::to_string(kCpuPrivateBytesPerGroup) + " a CPU device (" + device.facts().name +
                ") can keep on one thread's stack: use a smaller work-group or block");
}

void check_constant_filter(DeviceContext& device, const Filter& filter) {
  const std::size_t bytes = filter.weights.size() * sizeof(float);
  const std::size_t limit = device.facts().constant_mem_bytes;
  if (bytes > limit)
    throw Error("the " + std::to_string(filter.width) + "x" + std::to_string(filter.width) +
                " filter needs " + std::to_string(bytes) + " bytes of constant memory, over " +
                device.facts().name + "'s limit of " + std::to_string(limit) +
                " bytes (CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE)");
}

void check_local_memory(DeviceContext& device, const cl::Kernel& kernel, std::size_t bytes,
                        const std::string& what) {
  const std::size_t limit = device.facts().local_mem_bytes;
  const std::size_t used = kernel.getWorkGroupInfo<CL_KERNEL_LOCAL_MEM_SIZE>(device.device());
  if (used + bytes > limit)
    throw Error(what + " needs " + std::to_string(bytes) + " bytes of local memory" +
                (used ? " (plus " + std::to_string(used) + " the kernel uses already)" : "") +
                ", over " + device.facts().name + "'s limit of " + std::to_string(limit) +
                " bytes (CL_DEVICE_LOCAL_MEM_SIZE)");
}

void check_work_group_shape(DeviceContext& device, int wg_x, int wg_y, int wg_z) {
  const auto& f = device.facts();
  const bool three_d = wg_z != 1;
  const std::string shape = std::to_string(wg_x) + "x" + std::to_string(wg_y) +
                            (three_d ? "x" + std::to_string(wg_z) : "");
  const std::size_t items = static_cast<std::size_t>(wg_x) * wg_y * wg_z;
  if (items > f.max_work_group)
    throw Error("work-group " + shape + " = " + std::to_string(items) + " work-items is over " +
                f.name + "'s limit of " + std::to_string(f.max_work_group) +
                " (CL_DEVICE_MAX_WORK_GROUP_SIZE)");
  const std::size_t dims = three_d ? 3 : 2;
  const int asked[3] = {wg_x, wg_y, wg_z};
  if (f.max_work_item_sizes.size() < dims) return;
  std::string limits;
  bool over = false;
  for (std::size_t d = 0; d < dims; ++d) {
    over = over || static_cast<std::size_t>(asked[d]) > f.max_work_item_sizes[d];
    limits += (d ? "x" : "") + std::to_string(f.max_work_item_sizes[d]);
  }
  if (over)
    throw Error("work-group " + shape + " is over " + f.name + "'s per-dimension limits " + limits +
                " (CL_DEVICE_MAX_WORK_ITEM_SIZES)");
}

void check_work_group(DeviceContext& device, const cl::Kernel& kernel, int wg_x, int wg_y,
                      int wg_z) {
  check_work_group_shape(device, wg_x, wg_y, wg_z);
  const auto& f = device.facts();
  const std::string shape = std::to_string(wg_x) + "x" + std::to_string(wg_y) +
                            (wg_z != 1 ? "x" + std::to_string(wg_z) : "");
  const std::size_t items = static_cast<std::size_t>(wg_x) * wg_y * wg_z;
  const std::size_t kernel_max =
      kernel.getWorkGroupInfo<CL_KERNEL_WORK_GROUP_SIZE>(device.device());
  // A kernel compiled for exactly this shape (reqd_work_group_size) takes
  // it: the compiler budgeted its registers for it. NVIDIA's driver reports
  // 256 for every kernel, that one included, and launches it at its size
  // (step 10's split kernel at 512 on the H100, 2026-11-26).
  const auto compiled = kernel.getWorkGroupInfo<CL_KERNEL_COMPILE_WORK_GROUP_SIZE>(device.device());
  const bool compiled_for_it = compiled[0] == static_cast<std::size_t>(wg_x) &&
                               compiled[1] == static_cast<std::size_t>(wg_y) &&
                               compiled[2] == static_cast<std::size_t>(wg_z);
  if (items > kernel_max && !compiled_for_it)
    throw Error("work-group " + shape + " = " + std::to_string(items) +
                " work-items is over this kernel's limit of " + std::to_string(kernel_max) +
                " on " + f.name + " (CL_KERNEL_WORK_GROUP_SIZE)");
  check_private_memory(device, kernel, items, "work-group " + shape);
  // The kernel's own __local arrays (declared in its body, not passed as
  // arguments): on PoCL a launch whose arrays are over the limit ends the
  // program with an assertion inside the driver.
  const std::size_t local_limit = f.local_mem_bytes;
  const std::size_t local_used = kernel.getWorkGroupInfo<CL_KERNEL_LOCAL_MEM_SIZE>(device.device());
  if (local_used > local_limit)
    throw Error("the kernel's __local arrays need " + std::to_string(local_used) +
                " bytes of local memory, over " + f.name + "'s limit of " +
                std::to_string(local_limit) + " bytes (CL_DEVICE_LOCAL_MEM_SIZE)");
}

cl::LocalSpaceArg local_tile(DeviceContext& device, const cl::Kernel& kernel, int tile_width,
                             int tile_height, const std::string& shape) {
  const std::size_t bytes = sizeof(float) * static_cast<std::size_t>(tile_width) * tile_height;
  check_local_memory(device, kernel, bytes,
                     "a " + std::to_string(tile_width) + "x" + std::to_string(tile_height) +
                         " tile (" + shape + ")");
  return cl::Local(bytes);
}

}  // namespace conv
