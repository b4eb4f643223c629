// Step 7's launcher: step 6's blocks, with every choice a device makes
// differently a parameter: where the weights live (constant memory, local
// memory, or compiled in), the tile or reads through the caches, the block
// in rows or as vectors, how the tile copy is shared, whether the loop over
// tile rows is unrolled, the block and the work-group. An option left at
// auto comes from the tuner's stored winner for this device, driver and
// filter width (build/bin/step7-tuned --tune), else from the documented
// defaults (tuning.hpp); the run's note says which.
#include <chrono>
#include <cmath>
#include <cstdio>

#include "common/core/errors.hpp"
#include "common/machinery/parse.hpp"
#include "common/machinery/settings.hpp"
#include "step7-tuned/tuning.hpp"

namespace conv {
namespace embedded {
extern const char* const CLCONV_STEP_KERNEL;  // convolve.cl, embedded at build time
}

namespace {

class ThisStep : public Step {
 public:
  std::string name() const override { return CLCONV_STEP_NAME; }
  std::string summary() const override {
    return "step 6's blocks with every device-specific choice a parameter, found by a tuner";
  }
  std::vector<StepOption> options() const override {
    const std::string tuned = " or auto (the tuned winner, else the default; docs/step7-tuned.md)";
    return {{"weights",
             "Where the loops read the weights: constant (memory), local (copied to local memory, four "
             "per load), inline (compiled into a kernel built for this filter)," + tuned,
             "auto",
             {"auto", "constant", "local", "inline"},
             {}},
            {"tile",
             "on (the input copied to local memory first) or off (convolve_direct: each block's rows read "
             "straight from global memory, through the caches; shape rows, copy rows)," +
                 tuned + "; on for a --kernel file",
             "auto",
             {"auto", "on", "off"},
             {}},
            {"shape",
             "rows (each tile row in registers, reused across the block) or vectors (each block row one "
             "floatN, N = block width 4, 8 or 16: the CPU's shape)," + tuned,
             "auto",
             {"auto", "rows", "vectors"},
             {}},
            {"copy",
             "How the work-items share the tile copy: rows (each takes whole rows of float4s, as in step "
             "5), flat (the tile's float4s dealt out in turn, four loads in flight)," + tuned,
             "auto",
             {"auto", "rows", "flat"},
             {}},
            {"unroll", "Unroll the loop over tile rows too: on, off," + tuned, "auto", {"auto", "on", "off"}, {}},
            {"block",
             "Outputs per work-item WxH, W a multiple of 4," + tuned,
             "auto",
             {},
             {"4x1", "8x1", "4x2", "4x3"},  // each fits 48 KiB with F = 31 and every suite work-group
             auto_or_block(16)}};
  }
  std::string embedded_source() const override { return embedded::CLCONV_STEP_KERNEL; }
  // The tuned winner's work-group, else the default's.
  std::pair<int, int> default_work_group(const DeviceFacts& facts, const Filter& filter, const RunOptions&) const override {
    const int filter_width = filter.width;
    const TunedConfig c = stored_winner(facts, filter_width).value_or(documented_defaults(facts, filter_width));
    return {c.wg_x, c.wg_y};
  }
  // A --kernel file stands for convolve.cl's `convolve`; --tile off runs
  // convolve_direct.
  bool builds_kernel_file(const RunOptions& options) const override { return option(options, "tile") != "off"; }

  Launch prepare(DeviceContext& device, const Problem& problem, const RunOptions& options) override {
    check_constant_filter(device, problem.filter);
    cl::CommandQueue& queue = device.queue();
    const Image& in = problem.padded;
    const int out_width = problem.out_width(), out_height = problem.out_height();
    const int filter_width = problem.filter.width;
    const auto [c, origin] = resolve(device.facts(), options, filter_width);
    const bool direct = c.tile == "off";
    const int bx = c.block_x, by = c.block_y;
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
    const std::vector<float>& weights = problem.filter.weights;
    cl::Buffer filter = launch.buffer(CL_MEM_READ_ONLY, weights.size() * sizeof(float), "the filter");
    cl::copy(queue, weights.cbegin(), weights.cend(), filter);
    const std::size_t out_pitch = grid_w;  // floats per row
    cl::Buffer output = launch.output_buffer(CL_MEM_WRITE_ONLY, sizeof(float) * out_pitch * grid_h,
                                             "the output", out_pitch);

    // 2. The program: the width and the block compile-time constants, and
    //    one build option per choice of the configuration.
    std::string build_options = "-D FILTER_WIDTH=" + std::to_string(filter_width) +
                                " -D BLOCK_X=" + std::to_string(bx) + " -D BLOCK_Y=" + std::to_string(by);
    std::string kernel_source = source(options);
    if (c.unroll == "on") build_options += " -D UNROLL_ROWS";
    if (c.copy == "flat") build_options += " -D FLAT_COPY";
    if (c.weights == "local") build_options += " -D WEIGHTS_LOCAL";
    if (c.weights == "inline") {
      build_options += " -D WEIGHTS_INLINE";
      kernel_source = "#define FILTER_VALUES " + weight_literals(problem.filter) + "\n" + kernel_source;
    }
    if (c.shape == "vectors") build_options += " -D VECTOR_BLOCK";
    if (direct) build_options += " -D DIRECT_READS";
    const auto start = std::chrono::steady_clock::now();
    cl::Program program = device.program(kernel_source, build_options, label(options));
    const double build_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    launch.note = c.text() + " (" + origin + ")";
    if (c.weights == "inline") launch.note += "; " + build_note(build_ms);
    const cl::NDRange local(options.wg_x, options.wg_y);
    const cl::NDRange global(grid_w / bx, grid_h / by);
    launch.read = [=, &queue] {
      Image result(out_width, out_height);
      const std::size_t image_row = sizeof(float) * out_width;
      queue.enqueueReadBufferRect(output, CL_TRUE, {0, 0, 0}, {0, 0, 0},
                                  {image_row, static_cast<std::size_t>(out_height), 1},
                                  sizeof(float) * out_pitch, 0, image_row, 0, result.pixels.data());
      return result;
    };
    launch.work_group = shape_text(local);

    // 3. The ranges and 4. the run: one work-item per block of outputs, in
    //    work-groups of wg_x x wg_y; the blocks past the image compute values
    //    nobody reads.
    if (direct) {  // convolve_direct: no tile, local memory for the weights at most
      cl::KernelFunctor<cl::Buffer, cl::Buffer, cl::Buffer, int, int> convolve_direct(
          make_kernel(program, "convolve_direct", label(options)));
      check_work_group(device, convolve_direct.getKernel(), options.wg_x, options.wg_y);
      launch.run = [=, &queue]() mutable {
        return convolve_direct(cl::EnqueueArgs(queue, global, local), input, filter, output, in_pitch,
                               static_cast<int>(out_pitch));
      };
      return launch;
    }
    cl::KernelFunctor<cl::Buffer, cl::Buffer, cl::Buffer, int, int, cl::LocalSpaceArg, int, int> convolve(
        make_kernel(program, "convolve", label(options)));
    check_work_group(device, convolve.getKernel(), options.wg_x, options.wg_y);
    // The tile: the work-group's blocks plus the filter's reach, in whole float4s.
    const int tile_width = static_cast<int>(round_up(group_w + filter_width - 1, 4));
    const int tile_height = static_cast<int>(group_h) + filter_width - 1;
    const cl::LocalSpaceArg tile =
        local_tile(device, convolve.getKernel(), tile_width, tile_height,
                   "work-group " + shape_text(local) + ", block " + std::to_string(bx) + "x" +
                       std::to_string(by) + ", filter " + std::to_string(filter_width));
    launch.run = [=, &queue]() mutable {
      return convolve(cl::EnqueueArgs(queue, global, local), input, filter, output, in_pitch,
                      static_cast<int>(out_pitch), tile, tile_width, tile_height);
    };
    return launch;
  }

 private:
  // The configuration of this run, and where it came from. Each option
  // given explicitly wins; those left at auto come from the stored winner
  // for this device, driver and width, else from the documented defaults
  // (a --kernel file keeps the tile: it stands for convolve). When the
  // options given cannot go with the winner's other choices, the defaults
  // fill in instead; when they cannot go with those either, the options
  // themselves are the problem (UsageError, naming why).
  std::pair<TunedConfig, std::string> resolve(const DeviceFacts& facts, const RunOptions& options, int F) const {
    const std::optional<TunedConfig> winner = stored_winner(facts, F);
    std::string why;
    for (int attempt = 0; attempt < 2; ++attempt) {
      const bool tuned = attempt == 0 && winner;
      if (attempt == 0 && !winner) continue;
      TunedConfig c = tuned ? *winner : documented_defaults(facts, F);
      const auto set = [&](const char* name, std::string& field) {
        const std::string value = option(options, name);
        if (value != "auto") field = value;
      };
      set("weights", c.weights);
      set("tile", c.tile);
      set("shape", c.shape);
      set("copy", c.copy);
      set("unroll", c.unroll);
      if (!options.kernel_source.empty() && option(options, "tile") == "auto") c.tile = "on";
      // A shape or copy given that only the tile has brings the tile, where
      // left to auto (a GPU's defaults and winners run without it).
      if (option(options, "tile") == "auto" &&
          (option(options, "shape") == "vectors" || option(options, "copy") == "flat"))
        c.tile = "on";
      if (c.tile == "off") {  // the tile-less kernel's one shape, where left to auto
        if (option(options, "shape") == "auto") c.shape = "rows";
        if (option(options, "copy") == "auto") c.copy = "rows";
      }
      const std::string block = option(options, "block");
      if (block != "auto") {
        std::tie(c.block_x, c.block_y) = parse_size(block, "--block", 16);
      } else if (c.shape == "vectors" && c.block_x != 4 && c.block_x != 8 && c.block_x != 16) {
        c.block_x = 4;
      }
      c.wg_x = options.wg_x;
      c.wg_y = options.wg_y;
      // An automatic block shrinks (its height halved) until its tile fits.
      while (block == "auto" && c.block_y > 1 && ruled_out(facts, F, c).find("local memory") != std::string::npos)
        c.block_y /= 2;
      // Over the device's local memory or work-group size: prepare()'s checks
      // name the limit. Any other reason is a combination the kernel lacks.
      why = ruled_out(facts, F, c);
      if (why.empty() || why.find("local memory") != std::string::npos || why.rfind("work-group", 0) == 0)
        return {c, tuned ? "tuned winner, " + tuned_store_path() : "documented defaults; tune with --tune"};
    }
    throw UsageError("step7-tuned: " + why);
  }

  static std::string build_note(double build_ms) {
    char text[96];
    std::snprintf(text, sizeof text, "kernel built for this filter's weights in %.1f ms", build_ms);
    return text;
  }

  // The filter's weights as C float literals, "w0, w1, ...", each printed
  // with nine significant digits so that it reads back as the same float.
  static std::string weight_literals(const Filter& filter) {
    std::string text;
    for (float w : filter.weights) {
      if (!std::isfinite(w)) throw UsageError("--weights inline: the filter has a weight that is not finite");
      char literal[32];
      std::snprintf(literal, sizeof literal, "%.8ef", static_cast<double>(w));
      if (!text.empty()) text += ", ";
      text += literal;
    }
    return text;
  }
};

}  // namespace

std::unique_ptr<Step> make_step7_tuned() { return std::make_unique<ThisStep>(); }

}  // namespace conv
