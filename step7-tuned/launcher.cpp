// Step 7's launcher: step 6's blocks, with every choice a device makes
// differently a parameter: where the weights live (constant memory, local
// memory, or compiled in), the tile or reads through the caches, the block
// in rows or as vectors, how the tile copy is shared, whether the loop over
// tile rows is unrolled, the block and the work-group. The parameters are
// declared once, below (tune_parameters): the options come from them, and
// the harness's tuner searches them (common/machinery/tuner.hpp). An
// option left at auto comes from the tuned winner for this device, driver
// and filter width (build/bin/step7-tuned --tune), else from the
// documented defaults (tune_defaults); the run's note says which.
#include <chrono>
#include <cmath>
#include <cstdio>

#include "common/core/errors.hpp"
#include "common/machinery/parse.hpp"
#include "common/machinery/settings.hpp"
#include "common/machinery/tuning.hpp"

namespace conv {
namespace embedded {
extern const char* const CLCONV_STEP_KERNEL;  // convolve.cl, embedded at build time
}

namespace {

// A block "WxH" as numbers.
std::pair<int, int> block_of(const TunePoint& p) { return parse_size(p.at("block"), "--block", 16); }

class ThisStep : public Step, public Tunable {
 public:
  std::string name() const override { return CLCONV_STEP_NAME; }
  std::string summary() const override {
    return "step 6's blocks with every device-specific choice a parameter, found by a tuner";
  }
  std::vector<StepOption> options() const override {
    return tuned_options(tune_parameters(), ", or auto (the tuned winner, else the default; docs/step7-tuned.md)");
  }

  // ---- the search space, declared once ----
  std::string tune_name() const override { return CLCONV_STEP_NAME; }
  std::string tune_filters() const override { return "random:3,random:5,random:7,random:15,random:31"; }
  std::vector<TuneParameter> tune_parameters() const override {
    return {{"weights",
             "Where the loops read the weights: constant (memory), local (copied to local memory, four "
             "per load), inline (compiled into a kernel built for this filter)",
             {"constant", "local", "inline"},
             {"constant", "inline"}},
            {"tile",
             "on (the input copied to local memory first) or off (convolve_direct: each block's rows read "
             "straight from global memory, through the caches; shape rows, copy rows); on for a --kernel file",
             {"on", "off"},
             {"on", "off"}},
            {"shape",
             "rows (each tile row in registers, reused across the block) or vectors (each block row one "
             "floatN, N = block width 4, 8 or 16: the CPU's shape)",
             {"rows", "vectors"},
             {"rows", "vectors"}},
            {"copy",
             "How the work-items share the tile copy: rows (each takes whole rows of float4s, as in step "
             "5), flat (the tile's float4s dealt out in turn, four loads in flight)",
             {"rows", "flat"}},
            {"unroll", "Unroll the loop over tile rows too: on, off", {"off", "on"}, {"off", "on"}},
            {"block",
             "Outputs per work-item WxH, W a multiple of 4",
             {"4x1", "4x2", "4x4", "4x6", "4x8", "4x10", "4x12", "4x16", "8x1", "8x2", "8x4", "8x8", "16x1",
              "16x2", "16x4", "16x8"},
             {"4x2", "8x1"},
             [](const std::string& v) {  // any block the kernel takes, beyond those searched
               return auto_or_block(16)(v);
             },
             {"4x1", "8x1", "4x2", "4x3"}}};  // each fits 48 KiB with F = 31 and every suite work-group
  }
  std::vector<std::string> tune_work_groups(const DeviceFacts& facts, const TuneProblem&) const override {
    if (facts.is_gpu) return {"32x4", "32x8", "64x4", "16x16", "32x2", "128x1"};
    return {"16x16", "32x4", "8x8"};
  }
  // The documented defaults, one per kind of device and none per width
  // (docs/step7-tuned.md says why each): a GPU reads through its caches
  // (tile off) with the weights in constant memory, blocks 4x4 in rows,
  // work-group 32x4; a CPU keeps the tile and gives each work-item a vector
  // block 16x4 for its SIMD lanes, the weights in constant memory, the
  // loop over tile rows unrolled up to F = 31, work-group 16x16, except up
  // to F = 3, where it runs the GPU's tile-less 4x4 rows, unrolled.
  TunePoint tune_defaults(const DeviceFacts& facts, const TuneProblem& problem) const override {
    const long long F = problem.size;
    TunePoint p = {{"weights", "constant"}, {"tile", "on"}, {"shape", "rows"}, {"copy", "rows"},
                   {"unroll", "off"},       {"block", "4x4"}, {"wg", "16x16"}};
    if (facts.is_gpu) {
      p["tile"] = "off";
      p["wg"] = "32x4";
    } else if (F <= 3) {
      // Up to F = 3 a CPU runs the GPU's kernel without the tile, unrolled:
      // its few loads per output come from the CPU's caches, and the copy
      // and barrier cost more than they save (docs/step7-tuned.md).
      p["tile"] = "off";
      p["unroll"] = "on";
    } else {
      p["shape"] = "vectors";
      p["block"] = "16x4";
      // Unrolled up to F = 31: beyond, the F * F vector multiply-adds of one
      // unrolled loop make a build of minutes for little gain.
      p["unroll"] = F <= 31 ? "on" : "off";
    }
    return p;
  }
  std::string tune_ruled_out(const DeviceFacts& facts, const TuneProblem& problem,
                             const TunePoint& c) const override {
    const int F = static_cast<int>(problem.size);
    int bx = 0, by = 0, gx = 0, gy = 0;
    try {
      std::tie(bx, by) = block_of(c);
      std::tie(gx, gy) = parse_size(c.at("wg"), "wg", 1 << 14);
    } catch (const std::exception& e) {
      return e.what();
    }
    if (bx % 4 != 0 || bx < 4 || bx > 16 || by < 1 || by > 16)
      return "block " + c.at("block") + ": the width is 4, 8, 12 or 16 and the height 1 to 16";
    if (c.at("shape") == "vectors" && bx != 4 && bx != 8 && bx != 16)
      return "shape vectors: the block width is a vector width, 4, 8 or 16";
    const std::size_t items = static_cast<std::size_t>(gx) * gy;
    if (facts.max_work_group > 0 && items > facts.max_work_group)
      return "work-group " + c.at("wg") + " over the device's " + std::to_string(facts.max_work_group);
    const std::size_t weights = c.at("weights") == "local" ? sizeof(float) * F * round_up(F, 4) : 0;
    if (c.at("tile") == "off") {
      if (c.at("shape") == "vectors") return "tile off: the tile-less kernel has the rows shape only";
      if (c.at("copy") == "flat") return "tile off: there is no copy to share";
      if (weights + 1024 > facts.local_mem_bytes)
        return "weights " + std::to_string(weights) + " bytes, over the local memory";
      return "";
    }
    const std::size_t tile = sizeof(float) * round_up(static_cast<std::size_t>(gx) * bx + F - 1, 4) *
                             (static_cast<std::size_t>(gy) * by + F - 1);
    if (tile + weights + 1024 > facts.local_mem_bytes)  // a KiB spare for the compiler's own
      return "tile and weights " + std::to_string(tile + weights) + " bytes, over the local memory";
    return "";
  }

  std::string embedded_source() const override { return embedded::CLCONV_STEP_KERNEL; }
  std::string tune_kernels() const override { return embedded_source(); }  // both kernels
  // The tuned winner's work-group, else the default's.
  std::pair<int, int> default_work_group(const DeviceFacts& facts, const Filter& filter,
                                         const RunOptions& options) const override {
    const Resolved r = resolve(facts, options, filter, false);
    return parse_size(r.point.at("wg"), "wg", 1 << 14);
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
    const Resolved r = resolve(device.facts(), options, problem.filter, true);
    const TunePoint& c = r.point;
    const bool direct = c.at("tile") == "off";
    int bx = 0, by = 0;  // the block (lambdas below capture them: no structured binding)
    std::tie(bx, by) = block_of(c);
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
    if (c.at("unroll") == "on") build_options += " -D UNROLL_ROWS";
    if (c.at("copy") == "flat") build_options += " -D FLAT_COPY";
    if (c.at("weights") == "local") build_options += " -D WEIGHTS_LOCAL";
    if (c.at("weights") == "inline") {
      build_options += " -D WEIGHTS_INLINE";
      kernel_source = "#define FILTER_VALUES " + weight_literals(problem.filter) + "\n" + kernel_source;
    }
    if (c.at("shape") == "vectors") build_options += " -D VECTOR_BLOCK";
    if (direct) build_options += " -D DIRECT_READS";
    const auto start = std::chrono::steady_clock::now();
    cl::Program program = device.program(kernel_source, build_options, label(options));
    const double build_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    launch.note = point_text(*this, c) + " (" + r.origin + ")";
    if (c.at("weights") == "inline") launch.note += "; " + build_note(build_ms);
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
  // The configuration of this run, and where it came from (resolve_point:
  // the options given, then the stored winner, then the defaults). A
  // --kernel file keeps the tile: it stands for convolve. In prepare() the
  // work-group is the run's own; in default_work_group() it is to be found.
  Resolved resolve(const DeviceFacts& facts, const RunOptions& options, const Filter& filter,
                   bool with_work_group) const {
    TunePoint given = given_values(*this, *this, options);
    if (!options.kernel_source.empty() && !given.count("tile")) given["tile"] = "on";
    if (with_work_group) given["wg"] = std::to_string(options.wg_x) + "x" + std::to_string(options.wg_y);
    Resolved r = resolve_point(*this, facts, tune_problem(filter), given);
    // Over the device's local memory or work-group size, prepare()'s checks
    // name the limit; any other reason is a combination the kernel lacks.
    if (!r.why.empty() && r.why.find("local memory") == std::string::npos && r.why.rfind("work-group", 0) != 0)
      throw UsageError(std::string(CLCONV_STEP_NAME) + ": " + r.why);
    return r;
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
