// How the harness knows that a kernel wrote every output pixel, wrote finite
// values, and wrote nowhere else: outputs are poisoned before each launch,
// and every device buffer the harness makes has poisoned margins before and
// after it, checked after the launches (docs/reliability.md).
#pragma once
#include <cstdint>
#include <string>

#include "common/device.hpp"
#include "common/errors.hpp"
#include "common/image.hpp"

namespace conv {

// What a kernel did wrong, found by the harness: a pixel never written, a
// NaN or an infinity, a write outside its buffer. Exit status 1, like Error;
// the tests report it as a failed case.
struct KernelFault : Error {
  using Error::Error;
};

// The value an output holds before a launch: a quiet NaN whose payload no
// arithmetic produces, so "never written" and "computed NaN" differ.
constexpr std::uint32_t kPoisonBits = 0x7FC0DEADu;
float poison_value();
// The value of every margin float: another quiet NaN. Each buffer of a
// launch gets its own (kGuardBits + 0, 1, 2, ...): a kernel that reads past
// its input copies that NaN's payload, so an output margin holding the
// input's pattern would otherwise look untouched.
constexpr std::uint32_t kGuardBits = 0x7FF0BAD0u;

// Throws KernelFault naming `what`, the count and the first place of pixels
// still holding the poison, or else of NaN or infinite pixels.
void check_result(const Image& output, const std::string& what = "the output");

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
