// Step 9's launcher: the padded image through a forward FFT, a pointwise
// product with the filter's spectrum (computed here, once), an inverse FFT
// and a crop. The transform sizes and VkFFT's plans (fft_plan.hpp) are
// host-side setup, timed apart from the kernels (the note).
#include <algorithm>
#include <cfloat>
#include <cmath>
#include <memory>
#include <sstream>

#include "common/machinery/reference.hpp"
#include "common/core/errors.hpp"
#include "common/core/step.hpp"
#include "step9-fft/fft_plan.hpp"

namespace conv {
namespace embedded {
extern const char* const CLCONV_STEP_KERNEL;
}

namespace {

class ThisStep : public Step {
 public:
  std::string name() const override { return CLCONV_STEP_NAME; }
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
  std::string embedded_source() const override { return embedded::CLCONV_STEP_KERNEL; }
  bool exact_sums() const override { return false; }

  // The transform's error is spread over every output, not proportional to
  // each one's own terms: |out - exact| <= 2 log2(P Q) eps sum|K| max|x| at
  // every pixel, exact zeros included (docs/step9-fft.md derives it).
  Comparison compare(const Image& output, const Problem& problem,
                     const Reference& reference) const override {
    const Image& in = problem.padded;  // the larger bound of the two size choices
    const FftSizes s = fft_sizes(in.width, in.height, false), p = fft_sizes(in.width, in.height, true);
    const double log_n = std::log2(static_cast<double>(std::max(s.P * s.Q, p.P * p.Q)));
    return compare_with_absolute_tolerance(
        output, reference, 2.0 * log_n * FLT_EPSILON * output_scale(problem.filter, problem.padded));
  }

  Launch prepare(DeviceContext& device, const Problem& problem, const RunOptions& options) override {
    cl::CommandQueue& queue = device.queue();
    const Image& in = problem.padded;
    const std::vector<float>& weights = problem.filter.weights;
    const int in_width = in.width, in_height = in.height;
    const int out_width = problem.out_width(), out_height = problem.out_height();
    const int F = problem.filter.width;
    // The transform: P x Q reals in, Q rows of P/2 + 1 complex values out,
    // in place, so each row of the spectrum holds row_floats floats.
    // VkFFT's plan for this size: its own kernels, built and checked once
    // (host-side setup, kept per context and size). A plan that fails its
    // self-check gives way to the next sizes up.
    std::shared_ptr<FftPlan> plan =
        plans.get(device, fft_sizes(in_width, in_height, option(options, "size") == "pow2"),
                  fft_product(option(options, "product"), device.facts()));
    const FftSizes s = {plan->P, plan->Q};
    const std::size_t bytes = plan->buffer_bytes();
    const int row_floats = static_cast<int>(2 * (s.P / 2 + 1));
    const int rows = static_cast<int>(s.Q);
    const int complex_count = row_floats / 2 * rows;

    // 1. Buffers: the padded image (dense) and the filter go in, the output
    //    comes out; the image's spectrum and the filter's stay on the device.
    Launch launch(device);
    cl::Buffer input =
        launch.buffer(CL_MEM_READ_ONLY, in.pixels.size() * sizeof(float), "the padded input", in_width);
    cl::copy(queue, in.pixels.cbegin(), in.pixels.cend(), input);
    cl::Buffer output = launch.output_buffer(
        CL_MEM_WRITE_ONLY, sizeof(float) * out_width * out_height, "the output", out_width);
    cl::Buffer spectrum = launch.buffer(CL_MEM_READ_WRITE, bytes, "the image's spectrum", row_floats);
    cl::Buffer filter_spectrum = launch.buffer(CL_MEM_READ_WRITE, bytes, "the filter's spectrum", row_floats);
    cl::Buffer filter = launch.buffer(CL_MEM_READ_ONLY, weights.size() * sizeof(float), "the filter");
    cl::copy(queue, weights.cbegin(), weights.cend(), filter);

    // 2. The program: our three kernels (the transforms are VkFFT's).
    cl::Program program = device.program(source(options), "", label(options));
    // The product first, as every step's `convolve`: a --kernel file
    // without it, or with other arguments, is refused for it. Its arguments
    // are set here as well as at each enqueue, so that the refusal holds
    // when the fused product runs instead of it.
    const float scale = static_cast<float>(1.0 / (static_cast<double>(s.P) * s.Q));
    cl::KernelFunctor<cl::Buffer, cl::Buffer, int, float> multiply(
        make_kernel(program, "convolve", label(options)));
    multiply.getKernel().setArg(0, spectrum);
    multiply.getKernel().setArg(1, filter_spectrum);
    multiply.getKernel().setArg(2, complex_count);
    multiply.getKernel().setArg(3, scale);
    cl::KernelFunctor<cl::Buffer, int, int, cl::Buffer, int, int> load(
        make_kernel(program, "load_padded", label(options)));
    cl::KernelFunctor<cl::Buffer, int, cl::Buffer, int, int> crop(
        make_kernel(program, "crop", label(options)));

    // 3. The ranges: load over the whole spectrum, crop over the output,
    //    both in work-groups of wg_x x wg_y; the product is 1D, over the
    //    complex values, in groups of as many work-items.
    const std::size_t wx = options.wg_x, wy = options.wg_y;  // run_step checked the shape
    check_work_group(device, load.getKernel(), options.wg_x, options.wg_y);
    check_work_group(device, crop.getKernel(), options.wg_x, options.wg_y);
    check_work_group(device, multiply.getKernel(), options.wg_x * options.wg_y, 1);
    const cl::NDRange local(wx, wy);
    const cl::NDRange multiply_local(wx * wy);
    const cl::NDRange load_global(round_up(row_floats, wx), round_up(s.Q, wy));
    const cl::NDRange multiply_global(round_up(complex_count, wx * wy));
    const cl::NDRange crop_global(round_up(out_width, wx), round_up(out_height, wy));

    // The filter's spectrum, once: K in the corner of a zero P x Q array,
    // through the forward transform (for the fused product, into the
    // layout VkFFT's convolution reads).
    load(cl::EnqueueArgs(queue, load_global, local), filter, F, F, filter_spectrum, row_floats, rows);
    if (plan->product == FftProduct::fused)
      plan->set_filter(queue, filter_spectrum);
    else
      plan->forward(queue, filter_spectrum);
    queue.finish();

    // 4. Run: load, forward, product, inverse, crop; the time runs from
    //    load's start to crop's end, transforms included.
    auto first = std::make_shared<cl::Event>();
    launch.run = [=, &queue]() mutable {
      *first = load(cl::EnqueueArgs(queue, load_global, local), input, in_width, in_height, spectrum,
                    row_floats, rows);
      if (plan->product == FftProduct::fused) {
        plan->convolve(queue, spectrum);  // forward, product, inverse: VkFFT's kernels
      } else {
        plan->forward(queue, spectrum);
        multiply(cl::EnqueueArgs(queue, multiply_global, multiply_local), spectrum, filter_spectrum,
                 complex_count, scale);
        plan->inverse(queue, spectrum);
      }
      return crop(cl::EnqueueArgs(queue, crop_global, local), spectrum, row_floats, output, out_width,
                  out_height);
    };
    launch.elapsed = [first](const cl::Event& last) { return span_ms(*first, last); };
    // 5. Read: the output buffer back into an image.
    launch.read = [=, &queue] {
      Image result(out_width, out_height);
      cl::copy(queue, output, result.pixels.begin(), result.pixels.end());
      return result;
    };
    launch.work_group = shape_text(local);  // our three kernels' (VkFFT chooses its own)
    std::ostringstream note;
    note.precision(3);
    note << "transform " << s.P << "x" << s.Q << " for a " << in_width << "x" << in_height
         << " padded image" << plan->refused << "; VkFFT plan "
         << (plan->setup_ms > 0 ? std::to_string(static_cast<long>(plan->setup_ms)) + " ms" : "reused")
         << " (setup, not in the kernel times); VkFFT kernels per axis " << plan->axis_uploads;
    launch.note = note.str();
    plan->setup_ms = 0;  // the next launch of this size reuses it
    return launch;
  }

 private:
  FftPlans plans;  // kept for the life of the step (fft_plan.hpp)
};

}  // namespace

std::unique_ptr<Step> make_step9_fft() { return std::make_unique<ThisStep>(); }

}  // namespace conv
