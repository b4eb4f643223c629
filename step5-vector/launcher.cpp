// Step 5's launcher: step 4's "fixed", with a pitched device image. Rows
// are padded to 32 floats (128 bytes) with --aligned on, or left at the
// padded image's width with --aligned off; either way the buffer has room
// for whole float4s past the image, so the kernel's copy needs no bounds
// test. The image goes in with enqueueWriteBufferRect, row by row.
#include "common/core/errors.hpp"
#include "common/core/step.hpp"

namespace conv {
namespace embedded {
extern const char* const CLCONV_STEP_KERNEL;  // convolve.cl, embedded at build time
}

namespace {

std::string wg_complaint(int wg_x) {
  return "--wg: step5-vector copies float4s: the work-group width must be a multiple of 4, not " +
         std::to_string(wg_x);
}

class ThisStep : public Step {
 public:
  std::string name() const override { return CLCONV_STEP_NAME; }
  std::string summary() const override {
    return "the tile copied with float4 loads from a row-aligned device image";
  }
  std::vector<StepOption> options() const override {
    return {{"variant", "Kernel variant: float4 (the tile copied in float4 loads) or scalar (one float "
                        "at a time)",
             "float4", {"float4", "scalar"}, {}},
            {"aligned", "Pad device rows to 128 bytes (on) or keep the image's width (off)", "on",
             {"on", "off"}, {}}};
  }
  // Step 4's "fixed" also has the width as a compile-time constant.
  std::string builds_on() const override { return "fixed"; }
  void check_options(const RunOptions& options) const override {
    Step::check_options(options);
    if (options.wg_x % 4 != 0) throw UsageError(wg_complaint(options.wg_x));
  }
  std::string embedded_source() const override { return embedded::CLCONV_STEP_KERNEL; }

  Launch prepare(DeviceContext& device, const Problem& problem, const RunOptions& options) override {
    if (options.wg_x % 4 != 0) throw Error(wg_complaint(options.wg_x));
    check_constant_filter(device, problem.filter);
    cl::CommandQueue& queue = device.queue();
    const Image& in = problem.padded;
    const std::vector<float>& weights = problem.filter.weights;
    const int out_width = problem.out_width(), out_height = problem.out_height();
    const int filter_width = problem.filter.width;
    const bool aligned = option(options, "aligned") == "on";
    // The device image's rows: the groups cover a grid rounded up to the
    // work-group, and each reads up to three floats past its tile to finish
    // its last float4. Aligned rows start on 128 bytes.
    const std::size_t grid_w = round_up(out_width, options.wg_x);
    const std::size_t grid_h = round_up(out_height, options.wg_y);
    const std::size_t reach = grid_w + filter_width + 2;
    const int in_pitch = static_cast<int>(aligned ? round_up(reach, 32) : in.width);  // floats per row
    const std::size_t in_rows = (grid_h + filter_width - 2) + (reach + in_pitch - 1) / in_pitch;

    // 1. Buffers: the padded image and the filter go in, the output comes
    //    out. The input is pitched: zeros, then the image's rows written
    //    in_pitch floats apart.
    Launch launch(device);
    const std::size_t in_bytes = sizeof(float) * in_pitch * in_rows;
    const std::size_t row_bytes = sizeof(float) * in.width;
    cl::Buffer input = launch.buffer(CL_MEM_READ_ONLY, in_bytes, "the padded input", in_pitch);
    queue.enqueueFillBuffer(input, 0.0f, 0, in_bytes);
    queue.enqueueWriteBufferRect(input, CL_TRUE, {0, 0, 0}, {0, 0, 0},
                                 {row_bytes, static_cast<std::size_t>(in.height), 1},
                                 sizeof(float) * in_pitch, 0, row_bytes, 0, in.pixels.data());
    cl::Buffer filter = launch.buffer(CL_MEM_READ_ONLY, weights.size() * sizeof(float), "the filter");
    cl::copy(queue, weights.cbegin(), weights.cend(), filter);
    cl::Buffer output = launch.output_buffer(
        CL_MEM_WRITE_ONLY, sizeof(float) * out_width * out_height, "the output", out_width);

    // 2. The program: the width a compile-time constant (step 4's "fixed"),
    //    and the options of the variant and the alignment.
    std::string build_options = "-D FILTER_WIDTH=" + std::to_string(filter_width);
    if (aligned) build_options += " -D ALIGNED_PITCH";
    if (variant(options) == "scalar") build_options += " -D SCALAR_LOADS";
    cl::Program program = device.program(source(options), build_options, label(options));
    cl::KernelFunctor<cl::Buffer, cl::Buffer, cl::Buffer, int, int, int, cl::LocalSpaceArg, int, int>
        convolve(make_kernel(program, "convolve", label(options)));

    // 3. The ranges: one work-item per output pixel, in work-groups of
    //    wg_x x wg_y; the global range is rounded up to whole work-groups,
    //    and the kernel skips the work-items past the image.
    check_work_group(device, convolve.getKernel(), options.wg_x, options.wg_y);
    const cl::NDRange local(options.wg_x, options.wg_y);
    const cl::NDRange global(round_up(out_width, options.wg_x), round_up(out_height, options.wg_y));
    // The tile: the work-group's outputs plus the filter's reach, in whole float4s.
    const int tile_width = static_cast<int>(round_up(options.wg_x + filter_width - 1, 4));
    const int tile_height = options.wg_y + filter_width - 1;
    const cl::LocalSpaceArg tile =
        local_tile(device, convolve.getKernel(), tile_width, tile_height,
                   "work-group " + shape_text(local) + ", filter " + std::to_string(filter_width));

    // 4. Run: one enqueue of the kernel with its arguments; the event
    //    carries the kernel's start and end times.
    launch.run = [=, &queue]() mutable {
      return convolve(cl::EnqueueArgs(queue, global, local), input, filter, output, in_pitch,
                      out_width, out_height, tile, tile_width, tile_height);
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

std::unique_ptr<Step> make_step5_vector() { return std::make_unique<ThisStep>(); }

}  // namespace conv
