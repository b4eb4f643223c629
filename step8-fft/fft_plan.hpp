// A 2D real-to-complex FFT plan on the OpenCL device (VkFFT, header-only,
// OpenCL backend), in place: rows of P reals become P/2 + 1 complex values.
#pragma once
#include <memory>

#include "common/device.hpp"

namespace conv {

class FftPlan {
 public:
  // Builds VkFFT's kernels for a P x Q transform (P even) on `device`.
  FftPlan(DeviceContext& device, std::size_t P, std::size_t Q);
  ~FftPlan();
  FftPlan(const FftPlan&) = delete;
  FftPlan& operator=(const FftPlan&) = delete;

  // Bytes of a buffer that holds one transform: Q rows of P/2 + 1 complex.
  std::size_t buffer_bytes() const;
  // Enqueue the transform of `buffer` in place (unnormalized inverse).
  void forward(cl::CommandQueue& queue, cl::Buffer& buffer);
  void inverse(cl::CommandQueue& queue, cl::Buffer& buffer);

  std::size_t P, Q;
  double setup_ms = 0;  // building the plan (VkFFT compiles its kernels here)

 private:
  struct Impl;
  std::unique_ptr<Impl> impl;
};

}  // namespace conv
