#include "common/guard.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

namespace conv {
namespace {

std::string at(std::size_t index, std::size_t width) {
  return "(" + std::to_string(index % width) + ", " + std::to_string(index / width) + ")";
}

}  // namespace

float poison_value() {
  float v;
  std::memcpy(&v, &kPoisonBits, sizeof v);
  return v;
}

void check_result(const Image& output, const std::string& what) {
  std::size_t untouched = 0, non_finite = 0, first_untouched = 0, first_non_finite = 0;
  for (std::size_t i = 0; i < output.pixels.size(); ++i) {
    const float v = output.pixels[i];
    if (std::isfinite(v)) continue;
    std::uint32_t bits;
    std::memcpy(&bits, &v, sizeof bits);
    if (bits == kPoisonBits) {
      if (untouched++ == 0) first_untouched = i;
    } else if (non_finite++ == 0) {
      first_non_finite = i;
    }
  }
  const std::size_t w = static_cast<std::size_t>(std::max(output.width, 1));
  if (untouched > 0)
    throw KernelFault(what + ": " + std::to_string(untouched) + " of " +
                      std::to_string(output.pixels.size()) +
                      " pixels were never written by the kernel, the first at " +
                      at(first_untouched, w));
  if (non_finite > 0)
    throw KernelFault(what + ": " + std::to_string(non_finite) + " of " +
                      std::to_string(output.pixels.size()) +
                      " pixels are NaN or infinite, the first at " + at(first_non_finite, w) +
                      " (a read outside the input, or sums beyond float's range)");
}

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

}  // namespace conv
