// Step 6's launcher: step 5's aligned rows, with each work-item computing a
// block of outputs. The ranges count blocks, not pixels, and the output
// buffer covers whole blocks (its pitch is the grid's width, a multiple of
// 4), so the kernel stores float4s unguarded; the image comes back out of
// it with enqueueReadBufferRect. The block is a compile-time constant.
#include "common/core/errors.hpp"
#include "common/machinery/parse.hpp"
#include "common/machinery/settings.hpp"

namespace conv {
namespace embedded {
extern const char* const CLCONV_STEP_KERNEL;  // convolve.cl, embedded at build time
}

namespace {

class ThisStep : public Step {
 public:
  std::string name() const override { return CLCONV_STEP_NAME; }
  std::string summary() const override {
    return "register blocking: each work-item computes a block of outputs from registers";
  }
  std::vector<StepOption> options() const override {
    return {{"block",
             "Outputs per work-item WxH, W a multiple of 4, or auto: 4x4, its height halved while "
             "the tile does not fit the device's local memory (docs/step6-multioutput.md)",
             "auto",
             {},
             {"4x1", "8x2", "4x3"},  // each fits 48 KiB with F = 31 and every suite work-group
             auto_or_block(16)}};
  }
  std::string embedded_source() const override { return embedded::CLCONV_STEP_KERNEL; }

  Launch prepare(DeviceContext& device, const Problem& problem, const RunOptions& options) override {
    check_constant_filter(device, problem.filter);
    cl::CommandQueue& queue = device.queue();
    const Image& in = problem.padded;
    const std::vector<float>& weights = problem.filter.weights;
    const int out_width = problem.out_width(), out_height = problem.out_height();
    const int filter_width = problem.filter.width;
    const auto [bx, by] = block(device, options, filter_width);
    // The device image's rows: the groups cover a grid of whole blocks,
    // rounded up to the work-group, and each reads up to three floats past
    // its tile to finish its last float4. Rows start on 128 bytes.
    const std::size_t group_w = static_cast<std::size_t>(options.wg_x) * bx;
    const std::size_t group_h = static_cast<std::size_t>(options.wg_y) * by;
    const std::size_t grid_w = round_up(out_width, group_w);
    const std::size_t grid_h = round_up(out_height, group_h);
    const std::size_t reach = grid_w + filter_width + 2;
    const int in_pitch = static_cast<int>(round_up(reach, 32));  // floats per row
    const std::size_t in_rows = grid_h + filter_width - 1;

    // 1. Buffers: the padded image and the filter go in, the output comes
    //    out. The input is pitched: zeros, then the image's rows written
    //    in_pitch floats apart. The output covers the grid: whole blocks.
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
    const std::size_t out_pitch = grid_w;  // floats per row
    cl::Buffer output = launch.output_buffer(CL_MEM_WRITE_ONLY, sizeof(float) * out_pitch * grid_h,
                                             "the output", out_pitch);

    // 2. The program: the width and the block compile-time constants.
    const std::string build_options = "-D FILTER_WIDTH=" + std::to_string(filter_width) +
                                      " -D BLOCK_X=" + std::to_string(bx) + " -D BLOCK_Y=" + std::to_string(by);
    cl::Program program = device.program(source(options), build_options, label(options));
    cl::KernelFunctor<cl::Buffer, cl::Buffer, cl::Buffer, int, int, cl::LocalSpaceArg, int, int> convolve(
        make_kernel(program, "convolve", label(options)));

    // 3. The ranges: one work-item per block of outputs, in work-groups of
    //    wg_x x wg_y; the grid is whole work-groups, and the blocks past the
    //    image compute values nobody reads.
    check_work_group(device, convolve.getKernel(), options.wg_x, options.wg_y);
    const cl::NDRange local(options.wg_x, options.wg_y);
    const cl::NDRange global(grid_w / bx, grid_h / by);
    // The tile: the work-group's blocks plus the filter's reach, in whole float4s.
    const int tile_width = static_cast<int>(round_up(group_w + filter_width - 1, 4));
    const int tile_height = static_cast<int>(group_h) + filter_width - 1;
    const cl::LocalSpaceArg tile =
        local_tile(device, convolve.getKernel(), tile_width, tile_height,
                   "work-group " + shape_text(local) + ", block " + std::to_string(bx) + "x" +
                       std::to_string(by) + ", filter " + std::to_string(filter_width));

    // 4. Run: one enqueue of the kernel with its arguments; the event
    //    carries the kernel's start and end times.
    launch.run = [=, &queue]() mutable {
      return convolve(cl::EnqueueArgs(queue, global, local), input, filter, output, in_pitch,
                      static_cast<int>(out_pitch), tile, tile_width, tile_height);
    };
    // 5. Read: the image's rows out of the wider output buffer.
    launch.read = [=, &queue] {
      Image result(out_width, out_height);
      const std::size_t image_row = sizeof(float) * out_width;
      queue.enqueueReadBufferRect(output, CL_TRUE, {0, 0, 0}, {0, 0, 0},
                                  {image_row, static_cast<std::size_t>(out_height), 1},
                                  sizeof(float) * out_pitch, 0, image_row, 0, result.pixels.data());
      return result;
    };
    launch.work_group = shape_text(local);
    return launch;
  }

 private:
  // --block, or the rule: 4x4, its height halved (4x2, 4x1) while the tile
  // of a work-group's blocks does not fit the device's local memory.
  std::pair<int, int> block(DeviceContext& device, const RunOptions& options, int F) const {
    const std::string text = option(options, "block");
    if (text != "auto") {
      const auto [bx, by] = parse_size(text, "--block", 16);
      if (bx % 4 != 0) throw UsageError("--block: the width must be a multiple of 4, not " + std::to_string(bx));
      return {bx, by};
    }
    const std::size_t tile_width = round_up(static_cast<std::size_t>(options.wg_x) * 4 + F - 1, 4);
    int by = 4;  // the tile's bytes: tile_width x (wg_y * by + F - 1) floats
    while (by > 1 && sizeof(float) * tile_width * (options.wg_y * by + F - 1) > device.facts().local_mem_bytes) by /= 2;
    return {4, by};
  }
};

}  // namespace

std::unique_ptr<Step> make_step6_multioutput() { return std::make_unique<ThisStep>(); }

}  // namespace conv
