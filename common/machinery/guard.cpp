#include "common/machinery/guard.hpp"

#include <algorithm>
#include <cstring>
#include <vector>

#include "common/core/device_checks.hpp"
#include "common/core/launch.hpp"

namespace conv {

GuardedBuffer::GuardedBuffer(DeviceContext& device, cl_mem_flags flags, std::size_t bytes,
                             std::string what, std::size_t pitch, std::uint32_t guard_bits)
    : bytes_(bytes), pitch_(pitch), guard_bits_(guard_bits), what_(std::move(what)) {
  const auto& f = device.facts();
  const std::size_t align = std::max<std::size_t>(f.base_addr_align_bytes, 4);
  std::size_t margin = (std::clamp<std::size_t>(bytes, 64 << 10, 16 << 20) + align - 1) / align * align;
  if (bytes + 2 * margin > f.max_alloc_bytes)
    margin = f.max_alloc_bytes > bytes ? (f.max_alloc_bytes - bytes) / 2 / align * align : 0;
  if (f.platform.find("Oclgrind") != std::string::npos) margin = 0;
  if (margin == 0) {
    buffer = cl::Buffer(device.context(), flags, bytes);
    return;
  }
  margin_ = margin;
  parent_ = cl::Buffer(device.context(), CL_MEM_READ_WRITE, bytes + 2 * margin);
  float guard;
  std::memcpy(&guard, &guard_bits_, sizeof guard);
  device.queue().enqueueFillBuffer(parent_, guard, 0, bytes + 2 * margin);
  cl_buffer_region region{margin, bytes};
  buffer = parent_.createSubBuffer(flags, CL_BUFFER_CREATE_TYPE_REGION, &region);
}

void GuardedBuffer::check(cl::CommandQueue& queue) const {
  if (margin_ == 0) return;
  std::vector<std::uint32_t> before(margin_ / 4), after(margin_ / 4);
  queue.enqueueReadBuffer(parent_, CL_FALSE, 0, margin_, before.data());
  queue.enqueueReadBuffer(parent_, CL_TRUE, margin_ + bytes_, margin_, after.data());
  const std::size_t floats = bytes_ / 4;
  const std::size_t pitch = pitch_ ? pitch_ : std::max<std::size_t>(floats, 1);
  std::size_t changed = 0, first = 0;
  for (std::size_t i = 0; i < after.size(); ++i)
    if (after[i] != guard_bits_ && changed++ == 0) first = i;
  // The element written is named by its index in the buffer and, for a
  // buffer of rows, by the row and column that index would have: no
  // work-item is named, since none need exist there (a 1x1 output's
  // element 1 is "row 1", past its only row).
  if (changed > 0) {
    const std::size_t index = floats + first;
    std::string where = "element " + std::to_string(index);
    if (pitch_)
      where += " (row " + std::to_string(index / pitch) + ", column " + std::to_string(index % pitch) +
               " at " + std::to_string(pitch) + " float(s) a row; its last row is " +
               std::to_string((floats + pitch - 1) / pitch - 1) + ")";
    throw KernelFault("the kernel wrote past the end of " + what_ + ": " + where + ", " +
                      std::to_string(changed) + " float(s) changed after its " + std::to_string(floats));
  }
  for (std::size_t i = before.size(); i-- > 0;)
    if (before[i] != guard_bits_ && changed++ == 0) first = before.size() - i;
  if (changed > 0)
    throw KernelFault("the kernel wrote before the start of " + what_ + " (" +
                      std::to_string(changed) + " float(s) changed, the nearest " +
                      std::to_string(first) + " before it)");
}

// Launch's buffers (common/core/launch.hpp): each a GuardedBuffer, the
// outputs among them poisoned before the checked run.
struct Launch::Guards {
  std::vector<GuardedBuffer> buffers;
  std::vector<std::size_t> outputs;  // indexes into buffers
};

cl::Buffer Launch::buffer(cl_mem_flags flags, std::size_t bytes, const std::string& what,
                          std::size_t pitch) {
  check_buffer_size(*device_, bytes, what);
  if (!guards_) guards_ = std::make_shared<Guards>();
  auto& guarded = guards_->buffers;
  // Each buffer's margins hold their own NaN (kGuardBits + n), so a margin
  // that received another buffer's margin values is still found.
  guarded.emplace_back(*device_, flags, bytes, what, pitch,
                       kGuardBits + static_cast<std::uint32_t>(guarded.size()));
  return guarded.back().buffer;
}

cl::Buffer Launch::output_buffer(cl_mem_flags flags, std::size_t bytes, const std::string& what,
                                 std::size_t pitch) {
  cl::Buffer made = buffer(flags, bytes, what, pitch);
  guards_->outputs.push_back(guards_->buffers.size() - 1);
  return made;
}

void Launch::poison_outputs() {
  auto& queue = device_->queue();
  if (guards_)
    for (std::size_t i : guards_->outputs) {
      const cl::Buffer& b = guards_->buffers[i].buffer;
      queue.enqueueFillBuffer(b, poison_value(), 0, b.getInfo<CL_MEM_SIZE>());
    }
  queue.finish();
}

void Launch::check_guards() {
  if (guards_)
    for (const auto& g : guards_->buffers) g.check(device_->queue());
}

}  // namespace conv
