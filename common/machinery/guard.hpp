// The guard bands: every device buffer a Launch makes has poisoned margins
// before and after it, checked after the launches, so a kernel that writes
// outside its buffer is found (docs/reliability.md). Launch::buffer and
// its siblings (common/core/launch.hpp) are defined in guard.cpp.
#pragma once
#include <cstdint>
#include <string>

#include "common/core/device.hpp"
#include "common/core/errors.hpp"
#include "common/core/run_step.hpp"  // kPoisonBits, poison_value, check_result

namespace conv {

// The value of every margin float: another quiet NaN. Each buffer of a
// launch gets its own (kGuardBits + 0, 1, 2, ...): a kernel that reads past
// its input copies that NaN's payload, so an output margin holding the
// input's pattern would otherwise look untouched.
constexpr std::uint32_t kGuardBits = 0x7FF0BAD0u;

// A device buffer of `bytes` between two margins filled with kGuardBits: the
// kernel gets `buffer`, a sub-buffer of a larger allocation, so a write
// past either end lands in a margin instead of someone else's memory (on a
// CPU device, the host's heap), and check() finds it. A read past the end
// reads the margin's NaN, which poisons the result. Margins are 64 KiB to
// 16 MiB, as large as the buffer, and fit the device's allocation limit
// (none if nothing fits). Under Oclgrind there are none: it checks every
// access against the real buffer, which a margin would hide.
class GuardedBuffer {
 public:
  GuardedBuffer() = default;
  // `pitch` (floats per row) locates a write in the margin as (x, y).
  GuardedBuffer(DeviceContext& device, cl_mem_flags flags, std::size_t bytes, std::string what,
                std::size_t pitch = 0, std::uint32_t guard_bits = kGuardBits);
  cl::Buffer buffer;
  // Throws KernelFault when a margin float changed: "wrote past the end of
  // the output: element 21 (row 1, column 1 at 20 float(s) a row; its last
  // row is 0)".
  void check(cl::CommandQueue& queue) const;
  std::size_t margin_bytes() const { return margin_; }

 private:
  cl::Buffer parent_;
  std::size_t margin_ = 0, bytes_ = 0, pitch_ = 0;
  std::uint32_t guard_bits_ = kGuardBits;
  std::string what_;
};

}  // namespace conv
