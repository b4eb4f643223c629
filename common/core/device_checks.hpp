// Checks of a launch against the device's reported limits (work-group
// shape, buffer size, local, constant and private memory), made before the
// work is done so that the error names the limit. (The measured bandwidth
// and FMA rate are machinery/roofline.hpp's.)
#pragma once
#include <cstddef>
#include <string>

#include "common/core/device.hpp"
#include "common/core/problem.hpp"

namespace conv {

// Throws Error naming the limit when a work-group of wg_x x wg_y (x wg_z) is
// over the device's limits (total and per dimension), whatever the kernel.
void check_work_group_shape(DeviceContext& device, int wg_x, int wg_y, int wg_z = 1);

// As check_work_group_shape, and also against `kernel`'s own limit, the
// local memory its own __local arrays need (CL_KERNEL_LOCAL_MEM_SIZE) and,
// on a CPU, the stack its work-items' private memory needs
// (check_private_memory).
void check_work_group(DeviceContext& device, const cl::Kernel& kernel, int wg_x, int wg_y,
                      int wg_z = 1);

// Throws Error naming the limit when one buffer of `bytes` is more than the
// device allows (CL_DEVICE_MAX_MEM_ALLOC_SIZE).
void check_buffer_size(DeviceContext& device, std::size_t bytes, const std::string& what);

// Throws Error naming both numbers when `kernel`'s private memory for
// `items` work-items is over half a CPU worker thread's stack (PoCL: 8 MiB),
// past which the launch would crash the program; no check on a GPU. Per
// work-item: CL_KERNEL_PRIVATE_MEM_SIZE or `estimate`, whichever is larger.
void check_private_memory(DeviceContext& device, const cl::Kernel& kernel, std::size_t items,
                          const std::string& what, std::size_t estimate = 0);

// Throws Error naming both numbers when the filter does not fit in the
// device's constant memory (CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE).
void check_constant_filter(DeviceContext& device, const Filter& filter);

// Throws Error naming both numbers when `bytes` of __local memory, on top of
// what `kernel` already uses, exceed the device's local memory.
void check_local_memory(DeviceContext& device, const cl::Kernel& kernel, std::size_t bytes,
                        const std::string& what);

// The __local argument for a tile of tile_width x tile_height floats, after
// check_local_memory; the error names the tile and `shape` ("work-group
// 16x16, filter 7"). Steps 3-6 pass it to their kernels.
cl::LocalSpaceArg local_tile(DeviceContext& device, const cl::Kernel& kernel, int tile_width,
                             int tile_height, const std::string& shape);

}  // namespace conv
