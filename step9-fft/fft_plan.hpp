// A 2D real-to-complex FFT plan on the OpenCL device (VkFFT, header-only,
// OpenCL backend), in place: rows of P reals become P/2 + 1 complex values.
#pragma once
#include <memory>
#include <string>

#include "common/machinery/device_choice.hpp"
#include "common/machinery/program_cache.hpp"

namespace conv {

// How the plan runs the product (docs/step9-fft.md, "Fewer passes"):
//   separate:  forward and inverse are separate transforms; the caller's
//              own kernel multiplies the spectra between them;
//   fused:     VkFFT's convolution mode: one call does the forward
//              transform, the product with the filter's spectrum
//              (conjugated: correlation) and the inverse, multiplying
//              inside the last axis's kernel, normalized.
enum class FftProduct { separate, fused };

class FftPlan {
 public:
  // Builds VkFFT's kernels for a P x Q transform (P even) on `device`.
  FftPlan(DeviceContext& device, std::size_t P, std::size_t Q,
          FftProduct product = FftProduct::separate);
  ~FftPlan();
  FftPlan(const FftPlan&) = delete;
  FftPlan& operator=(const FftPlan&) = delete;

  // Bytes of a buffer that holds one transform: Q rows of P/2 + 1 complex.
  std::size_t buffer_bytes() const;
  // Enqueue the transform of `buffer` in place (unnormalized inverse).
  void forward(cl::CommandQueue& queue, cl::Buffer& buffer);
  void inverse(cl::CommandQueue& queue, cl::Buffer& buffer);
  // fused: transform the filter (K in the corner of a zero P x Q array)
  // in place into the layout convolve() reads, once.
  void set_filter(cl::CommandQueue& queue, cl::Buffer& filter);
  // fused: the whole correlation of `buffer` in place, against set_filter's.
  void convolve(cl::CommandQueue& queue, cl::Buffer& buffer);
  // The plan's own check, before it is trusted: pseudo-random reals through
  // the forward and the inverse transform (fused: a correlation with a unit
  // impulse), the largest difference from what went in, or infinity if any
  // value came back NaN or infinite. VkFFT's kernels for some sizes are
  // wrong on some devices (docs/step9-fft.md, "A library is checked too").
  double round_trip_error(cl::CommandQueue& queue);

  std::size_t P, Q;
  FftProduct product;
  double setup_ms = 0;  // building the plan (VkFFT compiles its kernels here)
  std::string axis_uploads;  // kernels per axis, as VkFFT split them: "1+2"
  std::string refused;       // set by the caller: sizes whose plans failed their self-check

 private:
  struct Impl;
  std::unique_ptr<Impl> impl;
};

}  // namespace conv
