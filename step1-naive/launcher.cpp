// Step 1's launcher: the whole OpenCL host side of the naive kernel. The
// harness has chosen the device (a context and a profiling queue) and padded
// the image; this file makes the buffers, builds the program, sets the
// ranges, and says how to run the kernel and read its result
// (docs/deeper/step1-naive.md reads it line by line).
#include "common/core/step.hpp"

namespace conv {
namespace embedded {
extern const char* const CLCONV_STEP_KERNEL;  // convolve.cl, embedded at build time
}

namespace {

class ThisStep : public Step {
 public:
  std::string name() const override { return CLCONV_STEP_NAME; }
  std::string summary() const override {
    return "one work-item per output pixel, image and filter in global memory";
  }
  std::string embedded_source() const override { return embedded::CLCONV_STEP_KERNEL; }

  Launch prepare(DeviceContext& device, const Problem& problem, const RunOptions& options) override {
    cl::CommandQueue& queue = device.queue();
    const Image& in = problem.padded;
    const std::vector<float>& weights = problem.filter.weights;
    const int in_pitch = in.width;  // floats per input row
    const int out_width = problem.out_width(), out_height = problem.out_height();
    const int filter_width = problem.filter.width;

    // 1. Buffers: the padded image and the filter go in, the output comes
    //    out. Launch::buffer is clCreateBuffer plus the harness's guard
    //    margins; cl::copy maps the buffer and copies into it.
    Launch launch(device);
    cl::Buffer input = launch.buffer(CL_MEM_READ_ONLY, in.pixels.size() * sizeof(float), "the padded input", in_pitch);
    cl::copy(queue, in.pixels.cbegin(), in.pixels.cend(), input);
    cl::Buffer filter = launch.buffer(CL_MEM_READ_ONLY, weights.size() * sizeof(float), "the filter");
    cl::copy(queue, weights.cbegin(), weights.cend(), filter);
    cl::Buffer output = launch.output_buffer(
        CL_MEM_WRITE_ONLY, sizeof(float) * out_width * out_height, "the output", out_width);

    // 2. The program, compiled for this device at run time (the harness
    //    keeps built programs, so a sweep builds each once), and the kernel
    //    as a functor whose argument types match convolve.cl's parameters.
    cl::Program program = device.program(source(options), "", label(options));
    cl::KernelFunctor<cl::Buffer, cl::Buffer, cl::Buffer, int, int, int, int> convolve(
        make_kernel(program, "convolve", label(options)));

    // 3. The ranges: one work-item per output pixel, in work-groups of
    //    wg_x x wg_y; the global range is rounded up to whole work-groups,
    //    and the kernel skips the work-items past the image.
    check_work_group(device, convolve.getKernel(), options.wg_x, options.wg_y);
    const cl::NDRange local(options.wg_x, options.wg_y);
    const cl::NDRange global(round_up(out_width, options.wg_x), round_up(out_height, options.wg_y));

    // 4. Run: one enqueue of the kernel with its arguments; the event
    //    carries the kernel's start and end times.
    launch.run = [=, &queue]() mutable {
      return convolve(cl::EnqueueArgs(queue, global, local), input, filter, output, in_pitch,
                      out_width, out_height, filter_width);
    };
    // 5. Read: the output buffer back into an image.
    launch.read = [=, &queue] {
      Image result(out_width, out_height);
      cl::copy(queue, output, result.pixels.begin(), result.pixels.end());
      return result;
    };
    launch.work_group = shape_text(local);
    return launch;
  }
};

}  // namespace

std::unique_ptr<Step> make_step1_naive() { return std::make_unique<ThisStep>(); }

}  // namespace conv
