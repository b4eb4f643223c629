// A 2D real-to-complex FFT plan on the OpenCL device (VkFFT, header-only,
// OpenCL backend), in place: rows of P reals become P/2 + 1 complex values;
// the transform sizes step 9 asks for, and the plans it keeps.
#pragma once
#include <map>
#include <memory>
#include <string>
#include <tuple>

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

// --product: "separate", "fused", or "auto", the default measured per
// device type (docs/step9-fft.md).
FftProduct fft_product(const std::string& option, const DeviceFacts& facts);

// The transform's sizes for a padded image of width x height: each the
// smallest even n at least as large whose only prime factors are 2, 3, 5
// and 7 (VkFFT's fast radices), or the next power of two (pow2); small
// sizes round to powers of two so that plans are shared. CLCONV_FFT_SIZE=PxQ
// sets them instead (bench/experiments.sh fft): `forced`.
struct FftSizes {
  std::size_t P, Q;
  bool forced = false;  // set by CLCONV_FFT_SIZE: refused if its plan fails, never replaced
};
FftSizes fft_sizes(int width, int height, bool pow2);

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

// VkFFT compiles its kernels when planning (seconds on a CPU device), so
// a step keeps its plans, per context, sizes and product, for its life.
// Each new plan first passes its self-check (FftPlan::round_trip_error):
// on PoCL, VkFFT's kernels for some sizes (3528x3528, 8232x8232) turn an
// image into infinities. Such a plan gives way to the next sizes up, at
// most twice, and its `refused` says so; sizes set by CLCONV_FFT_SIZE are
// not changed, only refused. Every size tried must fit the device's
// buffers.
class FftPlans {
 public:
  std::shared_ptr<FftPlan> get(DeviceContext& device, FftSizes sizes, FftProduct product);

 private:
  std::map<std::tuple<cl_context, std::size_t, std::size_t, FftProduct>, std::shared_ptr<FftPlan>> plans;
};

}  // namespace conv
