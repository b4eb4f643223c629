// Step 8's launcher: the padded image through a forward FFT, a pointwise
// product with the filter's spectrum (computed here, once), an inverse FFT
// and a crop. The transform sizes and VkFFT's plans are host-side setup,
// timed apart from the kernels (the note).
#include <algorithm>
#include <cfloat>
#include <cmath>
#include <map>
#include <sstream>
#include <tuple>

#include "common/errors.hpp"
#include "common/step.hpp"
#include "step8-fft/fft_plan.hpp"

namespace conv {
namespace embedded {
extern const char* const step8_fft_kernel;
}

namespace {

// The smallest even n >= size whose only prime factors are 2, 3, 5 and 7
// (VkFFT's fast radices), or the next power of two ("pow2"); small sizes
// round to powers of two so that plans are shared.
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

struct Sizes {
  std::size_t P, Q;
};

Sizes sizes_for(const Problem& problem, bool pow2) {
  return {transform_size(static_cast<std::size_t>(problem.padded.width), pow2),
          transform_size(static_cast<std::size_t>(problem.padded.height), pow2)};
}

class FftLaunch : public LegacyLaunch {
 public:
  FftLaunch(DeviceContext& device, const Problem& problem, std::shared_ptr<FftPlan> plan)
      : io(device, problem), plan(std::move(plan)) {}

  cl::Event enqueue(cl::CommandQueue& queue) override {
    cl::Event event;
    queue.enqueueNDRangeKernel(load, cl::NullRange, load_global, local, nullptr, &first);
    if (plan->product == FftProduct::fused) {
      plan->convolve(queue, spectrum);  // forward, product, inverse: VkFFT's kernels
    } else {
      plan->forward(queue, spectrum);
      queue.enqueueNDRangeKernel(multiply, cl::NullRange, multiply_global, multiply_local);
      plan->inverse(queue, spectrum);
    }
    queue.enqueueNDRangeKernel(crop, cl::NullRange, crop_global, local, nullptr, &event);
    return event;
  }
  double elapsed_ms(const cl::Event& last) const override { return span_ms(first, last); }
  void poison_output(cl::CommandQueue& queue) override { io.poison_output(queue); }
  Image read_output(cl::CommandQueue& queue) override { return io.read_output(queue); }
  // Our three kernels' (VkFFT chooses its own).
  std::string work_group() const override {
    return std::to_string(local[0]) + "x" + std::to_string(local[1]);
  }
  std::string note() const override { return note_text; }

  BufferLaunch io;  // the dense padded input and the output
  std::shared_ptr<FftPlan> plan;
  cl::Buffer spectrum, filter_spectrum;
  cl::Kernel load, multiply, crop;
  cl::NDRange load_global, multiply_global, crop_global, local, multiply_local;
  cl::Event first;
  std::string note_text;
};

class FftStep : public Step {
 public:
  std::string name() const override { return "step8-fft"; }
  std::string summary() const override {
    return "correlation through the FFT (VkFFT): forward, pointwise product, inverse, crop";
  }
  std::vector<StepOption> options() const override {
    return {{"size", "Transform sizes: smooth (the next 2^a 3^b 5^c 7^d) or pow2 (the next power of two)",
             "smooth", {"smooth", "pow2"}, {}},
            {"product", "The spectra's product: separate (our kernel between VkFFT's forward and inverse "
                        "transforms) or fused (VkFFT's convolution mode: one call, the product inside its "
                        "last axis's kernel); auto: the faster on this device type",
             "auto", {"auto", "separate", "fused"}, {}}};
  }
  std::string embedded_source() const override { return embedded::step8_fft_kernel; }
  bool exact_sums() const override { return false; }

  // The transform's error is spread over every output, not proportional to
  // each one's own terms: |out - exact| <= 2 log2(P Q) eps sum|K| max|x| at
  // every pixel, exact zeros included (docs/step8-fft.md derives it).
  Comparison compare(const Image& output, const Problem& problem,
                     const Reference& reference) const override {
    const Sizes s = sizes_for(problem, false);  // the larger bound of the two size choices
    const Sizes p = sizes_for(problem, true);
    const double log_n = std::log2(static_cast<double>(std::max(s.P * s.Q, p.P * p.Q)));
    double weights = 0, pixels = 0;
    for (float w : problem.filter.weights) weights += std::fabs(w);
    for (float x : problem.padded.pixels) pixels = std::max(pixels, static_cast<double>(std::fabs(x)));
    const double tolerance = 2.0 * log_n * FLT_EPSILON * weights * pixels;
    Reference bound = reference;  // the comparator's bound is terms * eps * magnitude
    std::fill(bound.magnitude.begin(), bound.magnitude.end(), tolerance / FLT_EPSILON);
    return compare_with_reference_terms(output, bound, 1);
  }

  Launch prepare(DeviceContext& device, const Problem& problem, const RunOptions& options) override {
    const Sizes s = sizes_for(problem, option(options, "size") == "pow2");
    const std::size_t bytes = (s.P / 2 + 1) * 2 * s.Q * sizeof(float);
    check_buffer_size(device, bytes, "the " + std::to_string(s.P) + "x" + std::to_string(s.Q) + " transform");
    auto plan = plan_for(device, s, product(device, options));
    auto launch = std::make_unique<FftLaunch>(device, problem, plan);
    const auto& ctx = device.context();
    launch->spectrum = cl::Buffer(ctx, CL_MEM_READ_WRITE, bytes);
    launch->filter_spectrum = cl::Buffer(ctx, CL_MEM_READ_WRITE, bytes);
    cl::Program program = device.program(source(options), "", label(options));
    const int row_floats = static_cast<int>(2 * (s.P / 2 + 1));
    const int complex_count = row_floats / 2 * static_cast<int>(s.Q);
    // The product first, as every step's `convolve`: a --kernel file
    // without it, or with other arguments, is refused for it.
    launch->multiply = make_kernel(program, "convolve", label(options));
    launch->multiply.setArg(0, launch->spectrum);
    launch->multiply.setArg(1, launch->filter_spectrum);
    launch->multiply.setArg(2, complex_count);
    launch->multiply.setArg(3, static_cast<float>(1.0 / (static_cast<double>(s.P) * s.Q)));
    launch->load = make_kernel(program, "load_padded", label(options));
    launch->crop = make_kernel(program, "crop", label(options));
    const std::size_t wx = options.wg_x, wy = options.wg_y;  // run_step checked the shape
    check_work_group(device, launch->load, options.wg_x, options.wg_y);
    check_work_group(device, launch->crop, options.wg_x, options.wg_y);
    check_work_group(device, launch->multiply, options.wg_x * options.wg_y, 1);
    launch->local = cl::NDRange(wx, wy);
    launch->multiply_local = cl::NDRange(wx * wy);
    launch->load_global = cl::NDRange(round_up(row_floats, wx), round_up(s.Q, wy));
    launch->multiply_global = cl::NDRange(round_up(complex_count, wx * wy));
    launch->crop_global = cl::NDRange(round_up(problem.out_width(), wx), round_up(problem.out_height(), wy));

    // The filter's spectrum: K in the corner of a zero P x Q array, forward.
    auto& queue = device.queue();
    const int F = problem.filter.width;
    cl::Buffer weights(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, F * F * sizeof(float),
                       const_cast<float*>(problem.filter.weights.data()));
    launch->load.setArg(0, weights);
    launch->load.setArg(1, F);
    launch->load.setArg(2, F);
    launch->load.setArg(3, launch->filter_spectrum);
    launch->load.setArg(4, row_floats);
    launch->load.setArg(5, static_cast<int>(s.Q));
    queue.enqueueNDRangeKernel(launch->load, cl::NullRange, launch->load_global, launch->local);
    if (plan->product == FftProduct::fused)
      plan->set_filter(queue, launch->filter_spectrum);
    else
      plan->forward(queue, launch->filter_spectrum);
    queue.finish();

    launch->load.setArg(0, launch->io.input);
    launch->load.setArg(1, problem.padded.width);
    launch->load.setArg(2, problem.padded.height);
    launch->load.setArg(3, launch->spectrum);
    launch->crop.setArg(0, launch->spectrum);
    launch->crop.setArg(1, row_floats);
    launch->crop.setArg(2, launch->io.output);
    launch->crop.setArg(3, problem.out_width());
    launch->crop.setArg(4, problem.out_height());
    std::ostringstream note;
    note.precision(3);
    note << "transform " << s.P << "x" << s.Q << " for a " << problem.padded.width << "x"
         << problem.padded.height << " padded image; VkFFT plan "
         << (plan->setup_ms > 0 ? std::to_string(static_cast<long>(plan->setup_ms)) + " ms" : "reused")
         << " (setup, not in the kernel times)";
    launch->note_text = note.str();
    plan->setup_ms = 0;  // the next launch of this size reuses it
    return adopt(device, std::move(launch));
  }

 private:
  // VkFFT compiles its kernels when planning (seconds on a CPU device), so
  // plans are kept per context and size for the life of the step.
  std::shared_ptr<FftPlan> plan_for(DeviceContext& device, Sizes s, FftProduct product) {
    const auto key = std::make_tuple(device.context()(), s.P, s.Q, product);
    auto it = plans.find(key);
    if (it != plans.end()) return it->second;
    auto plan = std::make_shared<FftPlan>(device, s.P, s.Q, product);
    plans[key] = plan;
    return plan;
  }
  std::map<std::tuple<cl_context, std::size_t, std::size_t, FftProduct>, std::shared_ptr<FftPlan>> plans;

  // --product, or the default measured per device type (docs/step8-fft.md).
  FftProduct product(DeviceContext& device, const RunOptions& options) const {
    const std::string text = option(options, "product");
    if (text == "separate") return FftProduct::separate;
    if (text == "fused") return FftProduct::fused;
    // bench/crossover.sh on the H200 (fused faster at every width) and one
    // run on PoCL (separate faster).
    return device.facts().is_gpu ? FftProduct::fused : FftProduct::separate;
  }
};

}  // namespace

std::unique_ptr<Step> make_step8_fft() { return std::make_unique<FftStep>(); }

}  // namespace conv
