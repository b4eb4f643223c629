// The only file that includes vkFFT.h (a large header: one translation unit).
#define VKFFT_BACKEND 3  // OpenCL
#include "step9-fft/fft_plan.hpp"

#include <vkFFT.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <sstream>
#include <vector>

#include "common/core/device_checks.hpp"
#include "common/core/errors.hpp"

namespace conv {

struct FftPlan::Impl {
  cl::Context context;  // VkFFT keeps pointers to these two
  cl_device_id device = nullptr;
  cl_context context_id = nullptr;
  cl::Buffer scratch;   // the buffer the plan is made for; launches name their own
  cl_mem scratch_id = nullptr;
  cl::Buffer kernel;    // fused: the filter's spectrum, in VkFFT's layout
  cl_mem kernel_id = nullptr;
  uint64_t bytes = 0;
  VkFFTApplication app = {};         // separate: forward and inverse; fused: the convolution
  VkFFTApplication kernel_app = {};  // fused: the filter's forward transform
  bool ready = false, kernel_ready = false;
};

namespace {

void check(VkFFTResult result, const std::string& what) {
  if (result != VKFFT_SUCCESS)
    throw Error("VkFFT: " + what + " failed with error " + std::to_string(static_cast<int>(result)));
}

// CLCONV_VKFFT="key=value,...": VkFFT's tuning knobs, for bench/experiments.sh
// fft (docs/step9-fft.md). Unknown keys are refused.
void apply_tuning(VkFFTConfiguration& config) {
  const char* text = std::getenv("CLCONV_VKFFT");
  if (!text || !*text) return;
  std::stringstream items(text);
  std::string item;
  while (std::getline(items, item, ',')) {
    const auto eq = item.find('=');
    if (eq == std::string::npos) throw Error("CLCONV_VKFFT: '" + item + "' is not key=value");
    const std::string key = item.substr(0, eq);
    char* end = nullptr;
    const unsigned long long value = std::strtoull(item.c_str() + eq + 1, &end, 10);
    if (eq + 1 == item.size() || *end) throw Error("CLCONV_VKFFT: '" + item + "' needs a whole number");
    if (key == "registerBoost") config.registerBoost = value;
    else if (key == "registerBoostNonPow2") config.registerBoostNonPow2 = value;
    else if (key == "registerBoost4Step") config.registerBoost4Step = value;
    else if (key == "coalescedMemory") config.coalescedMemory = value;
    else if (key == "aimThreads") config.aimThreads = value;
    else if (key == "useLUT") config.useLUT = value;
    else if (key == "performBandwidthBoost") config.performBandwidthBoost = value;
    else if (key == "disableMergeSequencesR2C") config.disableMergeSequencesR2C = value;
    else if (key == "numSharedBanks") config.numSharedBanks = value;
    else if (key == "maxThreadsNum") config.maxThreadsNum = value;
    else if (key == "sharedMemorySize") config.sharedMemorySize = value;
    else throw Error("CLCONV_VKFFT: unknown key '" + key + "'");
  }
}

// One of the application's transforms of `buffer` on `queue` (direction -1
// forward, 1 inverse; `kernel`: the filter's spectrum, for the fused product).
void append(VkFFTApplication& app, cl::CommandQueue& queue, cl_mem buffer, int direction,
            const std::string& what, cl_mem kernel = nullptr) {
  cl_command_queue q = queue();
  VkFFTLaunchParams params = {};
  params.commandQueue = &q;
  params.buffer = &buffer;
  if (kernel) params.kernel = &kernel;
  check(VkFFTAppend(&app, direction, &params), what);
}

std::string uploads(const VkFFTApplication& app) {
  std::string text;
  for (int a = 0; a < 2; ++a)
    text += (a ? "+" : "") + std::to_string(app.localFFTPlan->numAxisUploads[a]);
  return text;
}

std::size_t transform_size(std::size_t size, bool pow2) {
  std::size_t p = 8;
  while (p < size) p *= 2;
  if (pow2 || size <= 64) return p;
  for (std::size_t n = size + size % 2;; n += 2) {
    std::size_t m = n;
    for (std::size_t f : {2, 3, 5, 7})
      while (m % f == 0) m /= f;
    if (m == 1) return n;
  }
}

}  // namespace

FftProduct fft_product(const std::string& option, const DeviceFacts& facts) {
  if (option == "separate") return FftProduct::separate;
  if (option == "fused") return FftProduct::fused;
  // bench/crossover.sh on the H200 (fused faster at every width) and one
  // run on PoCL (separate faster).
  return facts.is_gpu ? FftProduct::fused : FftProduct::separate;
}

FftSizes fft_sizes(int width, int height, bool pow2) {
  const char* text = std::getenv("CLCONV_FFT_SIZE");
  if (text && *text) {
    unsigned long P = 0, Q = 0;
    char x = 0, extra = 0;
    if (std::sscanf(text, "%lu%c%lu%c", &P, &x, &Q, &extra) != 3 || x != 'x' || P % 2 ||
        P < static_cast<unsigned long>(width) || Q < static_cast<unsigned long>(height))
      throw Error(std::string("CLCONV_FFT_SIZE: '") + text + "' is not PxQ, P even, at least the padded image");
    return {P, Q, true};
  }
  return {transform_size(static_cast<std::size_t>(width), pow2),
          transform_size(static_cast<std::size_t>(height), pow2)};
}

std::shared_ptr<FftPlan> FftPlans::get(DeviceContext& device, FftSizes s, FftProduct product) {
  const auto key = std::make_tuple(device.context()(), s.P, s.Q, product);
  auto it = plans.find(key);
  if (it != plans.end()) return it->second;
  std::string refused;  // the sizes whose plans failed, for the note
  double spent = 0;     // and the time they took, set-up too
  for (int attempt = 0;; ++attempt) {
    const std::string size = std::to_string(s.P) + "x" + std::to_string(s.Q);
    check_buffer_size(device, (s.P / 2 + 1) * 2 * s.Q * sizeof(float), "the " + size + " transform");
    auto plan = std::make_shared<FftPlan>(device, s.P, s.Q, product);
    const auto t0 = std::chrono::steady_clock::now();
    const double error = plan->round_trip_error(device.queue());
    plan->setup_ms += std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    if (error <= 1e-3) {  // a correct plan is off by about log2(P Q) eps: 1e-6 here
      plan->setup_ms += spent;
      if (!refused.empty()) plan->refused = " (VkFFT's " + refused + " failed its self-check here)";
      plans[key] = plan;
      return plan;
    }
    std::ostringstream what;
    what << "VkFFT's " << size << " transform failed its self-check on this device (round trip off by "
         << error << ")" << (s.forced ? "" : attempt == 2 ? ", as did the two sizes before it" : "");
    if (s.forced || attempt == 2) throw Error(what.str());
    refused += (refused.empty() ? "" : ", ") + size;
    spent += plan->setup_ms;
    s = {transform_size(s.P + 1, false), transform_size(s.Q + 1, false)};
  }
}

FftPlan::FftPlan(DeviceContext& device, std::size_t P_, std::size_t Q_, FftProduct product_)
    : P(P_), Q(Q_), product(product_), impl(new Impl) {
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
  apply_tuning(config);
  const std::string what = std::to_string(P) + "x" + std::to_string(Q) + " transform";
  if (product == FftProduct::fused) {
    impl->kernel = cl::Buffer(impl->context, CL_MEM_READ_WRITE, impl->bytes);
    impl->kernel_id = impl->kernel();
    VkFFTConfiguration k = config;  // the same transform, made for the filter
    k.kernelConvolution = 1;
    k.buffer = &impl->kernel_id;
    check(initializeVkFFT(&impl->kernel_app, k), "planning the filter's " + what);
    impl->kernel_ready = true;
    config.performConvolution = 1;
    config.conjugateConvolution = 2;  // X conj(K): correlation
    config.normalize = 1;             // the inverse divides by P Q
    config.kernel = &impl->kernel_id;
    config.kernelSize = &impl->bytes;
  }
  check(initializeVkFFT(&impl->app, config), "planning a " + what);
  impl->ready = true;
  axis_uploads = uploads(impl->app);
  setup_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

FftPlan::~FftPlan() {
  if (impl && impl->ready) deleteVkFFT(&impl->app);
  if (impl && impl->kernel_ready) deleteVkFFT(&impl->kernel_app);
}

std::size_t FftPlan::buffer_bytes() const { return (P / 2 + 1) * 2 * Q * sizeof(float); }

void FftPlan::forward(cl::CommandQueue& queue, cl::Buffer& buffer) {
  append(impl->app, queue, buffer(), -1, "the forward transform");
}

void FftPlan::inverse(cl::CommandQueue& queue, cl::Buffer& buffer) {
  append(impl->app, queue, buffer(), 1, "the inverse transform");
}

void FftPlan::set_filter(cl::CommandQueue& queue, cl::Buffer& filter) {
  queue.enqueueCopyBuffer(filter, impl->kernel, 0, 0, impl->bytes);
  append(impl->kernel_app, queue, impl->kernel_id, -1, "the filter's forward transform");
}

void FftPlan::convolve(cl::CommandQueue& queue, cl::Buffer& buffer) {
  append(impl->app, queue, buffer(), -1, "the fused correlation", impl->kernel_id);
}

double FftPlan::round_trip_error(cl::CommandQueue& queue) {
  const std::size_t row = 2 * (P / 2 + 1), count = row * Q;  // floats, as the transform lays them out
  std::vector<float> x(count, 0.0f);
  std::uint32_t state = 12345;
  for (std::size_t q = 0; q < Q; ++q)
    for (std::size_t p = 0; p < P; ++p) {
      state = state * 1664525u + 1013904223u;
      x[q * row + p] = static_cast<float>(state >> 8) / 16777216.0f - 0.5f;
    }
  cl::Buffer data(impl->context, CL_MEM_READ_WRITE, impl->bytes);
  queue.enqueueWriteBuffer(data, CL_TRUE, 0, impl->bytes, x.data());
  float scale = 1.0f;
  if (product == FftProduct::fused) {
    std::vector<float> impulse(count, 0.0f);  // spectrum 1 everywhere: the correlation is x
    impulse[0] = 1.0f;
    queue.enqueueWriteBuffer(impl->kernel, CL_TRUE, 0, impl->bytes, impulse.data());
    append(impl->kernel_app, queue, impl->kernel_id, -1, "the self-check's impulse transform");
    convolve(queue, data);
  } else {
    forward(queue, data);
    inverse(queue, data);
    scale = static_cast<float>(1.0 / (static_cast<double>(P) * Q));
  }
  std::vector<float> y(count);
  queue.enqueueReadBuffer(data, CL_TRUE, 0, impl->bytes, y.data());
  double worst = 0;
  for (std::size_t q = 0; q < Q; ++q)
    for (std::size_t p = 0; p < P; ++p) {
      const double d = std::fabs(static_cast<double>(y[q * row + p]) * scale - x[q * row + p]);
      if (!std::isfinite(d)) return std::numeric_limits<double>::infinity();
      worst = std::max(worst, d);
    }
  return worst;
}

}  // namespace conv
