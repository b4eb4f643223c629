// Step 4's launcher: step 3's; the variant picks the build options (the
// harness keeps one built program per source and options, so a sweep over
// widths builds each width's "fixed" program once).
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
    return "step 3 with the inner loop unrolled: remainder loop, if-else remainder, or a "
           "compile-time width";
  }
  std::vector<StepOption> options() const override {
    return {{"variant", "Kernel variant: loop4 (a remainder loop), ifelse (an if-else remainder) or "
                        "fixed (the width a compile-time constant)",
             "loop4", {"loop4", "ifelse", "fixed"}, {}}};
  }
  std::string embedded_source() const override { return embedded::CLCONV_STEP_KERNEL; }

  Launch prepare(DeviceContext& device, const Problem& problem, const RunOptions& options) override {
    check_constant_filter(device, problem.filter);
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

    // 2. The program, built with the variant's options, and the kernel.
    const std::string v = variant(options);
    const std::string build_options = v == "ifelse"  ? "-D REMAINDER_IFELSE"
                                      : v == "fixed" ? "-D FILTER_WIDTH=" + std::to_string(filter_width)
                                                     : "";
    cl::Program program = device.program(source(options), build_options, label(options));
    cl::KernelFunctor<cl::Buffer, cl::Buffer, cl::Buffer, int, int, int, int, cl::LocalSpaceArg, int, int>
        convolve(
        make_kernel(program, "convolve", label(options)));

    // 3. The ranges: one work-item per output pixel, in work-groups of
    //    wg_x x wg_y; the global range is rounded up to whole work-groups,
    //    and the kernel skips the work-items past the image.
    check_work_group(device, convolve.getKernel(), options.wg_x, options.wg_y);
    const cl::NDRange local(options.wg_x, options.wg_y);
    const cl::NDRange global(round_up(out_width, options.wg_x), round_up(out_height, options.wg_y));
    // The tile: the work-group's outputs plus the filter's reach.
    const int tile_width = options.wg_x + filter_width - 1;
    const int tile_height = options.wg_y + filter_width - 1;
    const cl::LocalSpaceArg tile =
        local_tile(device, convolve.getKernel(), tile_width, tile_height,
                   "work-group " + shape_text(local) + ", filter " + std::to_string(filter_width));

    // 4. Run: one enqueue of the kernel with its arguments; the event
    //    carries the kernel's start and end times.
    launch.run = [=, &queue]() mutable {
      return convolve(cl::EnqueueArgs(queue, global, local), input, filter, output, in_pitch,
                      out_width, out_height, filter_width, tile, tile_width, tile_height);
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

std::unique_ptr<Step> make_step4_unroll() { return std::make_unique<ThisStep>(); }

}  // namespace conv
