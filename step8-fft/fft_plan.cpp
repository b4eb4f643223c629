// The only file that includes vkFFT.h (a large header: one translation unit).
#define VKFFT_BACKEND 3  // OpenCL
#include "step8-fft/fft_plan.hpp"

#include <vkFFT.h>

#include <chrono>

#include "common/errors.hpp"

namespace conv {

struct FftPlan::Impl {
  cl::Context context;  // VkFFT keeps pointers to these two
  cl_device_id device = nullptr;
  cl_context context_id = nullptr;
  cl::Buffer scratch;   // the buffer the plan is made for; launches name their own
  cl_mem scratch_id = nullptr;
  uint64_t bytes = 0;
  VkFFTApplication app = {};
  bool ready = false;
};

namespace {

void check(VkFFTResult result, const std::string& what) {
  if (result != VKFFT_SUCCESS)
    throw Error("VkFFT: " + what + " failed with error " + std::to_string(static_cast<int>(result)));
}

}  // namespace

FftPlan::FftPlan(DeviceContext& device, std::size_t P_, std::size_t Q_) : P(P_), Q(Q_), impl(new Impl) {
  const auto t0 = std::chrono::steady_clock::now();
  impl->context = device.context();
  impl->context_id = impl->context();
  impl->device = device.device()();
  impl->bytes = buffer_bytes();
  impl->scratch = cl::Buffer(impl->context, CL_MEM_READ_WRITE, impl->bytes);
  impl->scratch_id = impl->scratch();
  VkFFTConfiguration config = {};
  config.FFTdim = 2;
  config.size[0] = P;
  config.size[1] = Q;
  config.performR2C = 1;
  config.device = &impl->device;
  config.context = &impl->context_id;
  config.bufferSize = &impl->bytes;
  config.buffer = &impl->scratch_id;
  check(initializeVkFFT(&impl->app, config),
        "planning a " + std::to_string(P) + "x" + std::to_string(Q) + " transform");
  impl->ready = true;
  setup_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

FftPlan::~FftPlan() {
  if (impl && impl->ready) deleteVkFFT(&impl->app);
}

std::size_t FftPlan::buffer_bytes() const { return (P / 2 + 1) * 2 * Q * sizeof(float); }

void FftPlan::forward(cl::CommandQueue& queue, cl::Buffer& buffer) {
  cl_command_queue q = queue();
  cl_mem b = buffer();
  VkFFTLaunchParams params = {};
  params.commandQueue = &q;
  params.buffer = &b;
  check(VkFFTAppend(&impl->app, -1, &params), "the forward transform");
}

void FftPlan::inverse(cl::CommandQueue& queue, cl::Buffer& buffer) {
  cl_command_queue q = queue();
  cl_mem b = buffer();
  VkFFTLaunchParams params = {};
  params.commandQueue = &q;
  params.buffer = &b;
  check(VkFFTAppend(&impl->app, 1, &params), "the inverse transform");
}

}  // namespace conv
