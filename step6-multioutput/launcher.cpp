// Step 6's launcher: step 5's aligned rows, with each work-item computing a
// block of outputs. The ranges count blocks, not pixels, and the output
// buffer covers whole blocks (its pitch is the grid's width, a multiple of
// 4), so the kernel stores float4s unguarded; the image comes back out of
// it with enqueueReadBufferRect. With --bank N (2 to 16) it builds bank.cl
// instead: N filters in one pass, N floats per pixel, read back as N planes
// one under another.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>

#include "common/errors.hpp"
#include "common/parse.hpp"
#include "common/step.hpp"
#include "step6-multioutput/tuning.hpp"

namespace conv {
namespace embedded {
extern const char* const step6_multioutput_kernel;  // convolve.cl, embedded at build time
extern const char* const step6_bank_kernel;         // bank.cl
}

namespace {

class MultiOutputStep : public Step {
 public:
  std::string name() const override { return "step6-multioutput"; }
  std::string summary() const override {
    return "register blocking: each work-item computes a block of outputs from registers";
  }
  std::vector<StepOption> options() const override {
    return {{"bank",
             "Filters in one pass: 1 (convolve.cl), or N = 2, 4, 8 or 16 (bank.cl): --filter and N - 1 "
             "more drawn from it, their output planes one under another (docs/step6-multioutput.md)",
             "1",
             {"1", "2", "4", "8", "16"},
             {}},
            {"block",
             "Outputs per work-item WxH, W a multiple of 4 (default: tuned per device type, "
             "docs/step6-multioutput.md)",
             "auto",
             {},
             {"4x1", "8x1", "4x2", "4x3"},  // each fits 48 KiB with F = 31 and every suite work-group
             auto_or_block(16)},
            {"unroll",
             "Unroll the loop over tile rows too: on, off, or auto (tuned per device type)",
             "auto",
             {"auto", "on", "off"},
             {}},
            {"weights",
             "Where the loops read the weights: constant (memory), local (copied to local memory, "
             "four per load), inline (compiled into a kernel built for this filter), or auto "
             "(tuned per device type)",
             "auto",
             {"auto", "constant", "local", "inline"},
             {}},
            {"shape",
             "rows (each tile row in registers, reused across the block) or vectors (each block "
             "row one floatN, N = block width 4, 8 or 16: the CPU's shape), or auto",
             "auto",
             {"auto", "rows", "vectors"},
             {}},
            {"copy",
             "How the work-items share the tile copy: rows (each takes whole rows of float4s, as "
             "in step 5), flat (the tile's float4s dealt out in turn, four loads in flight), or auto",
             "auto",
             {"auto", "rows", "flat"},
             {}},
            {"tile",
             "on (the input copied to local memory first) or off (convolve_direct: each block's rows "
             "read straight from global memory, through the caches; weights constant or inline, "
             "shape rows), or auto (tuned per device type; on for a --kernel file)",
             "auto",
             {"auto", "on", "off"},
             {}}};
  }
  void check_options(const RunOptions& options) const override {
    Step::check_options(options);
    check_bank_options(options);
  }
  std::string embedded_source() const override { return embedded::step6_multioutput_kernel; }
  // 32x4 on a GPU; on a CPU 32x4 too where the blocks read without the tile
  // (F <= 3), else 16x16 (bench/experiments.sh direct-cpu).
  std::pair<int, int> default_work_group(const DeviceFacts& facts, int filter_width) const override {
    return facts.is_gpu || step6_direct_by_default(facts, filter_width) ? std::pair<int, int>{32, 4}
                                                                         : std::pair<int, int>{16, 16};
  }
  // A --kernel file stands for convolve.cl's `convolve`: --bank 2 to 16
  // build bank.cl, and --tile off runs convolve_direct.
  bool builds_kernel_file(const RunOptions& options) const override {
    return bank(options) == 1 && option(options, "tile") != "off";
  }
  // With --bank N, read() returns N planes, filter k's under filter k - 1's.
  std::vector<Filter> plane_filters(const Problem& problem, const RunOptions& options) const override {
    return step6_bank_filters(problem.filter, bank(options));
  }
  // Each plane against its own filter's exact answer (`reference` is the
  // first filter's, the problem's own).
  Comparison compare(const Image& output, const Problem& problem, const Reference& reference) const override;

  Launch prepare(DeviceContext& device, const Problem& problem, const RunOptions& options) override {
    check_bank_options(options);
    check_constant_weights(device, problem.filter, bank(options));
    cl::CommandQueue& queue = device.queue();
    const Image& in = problem.padded;
    const int out_width = problem.out_width(), out_height = problem.out_height();
    const int filter_width = problem.filter.width;
    const int bank = this->bank(options);
    const std::vector<Filter> filters = plane_filters(problem, options);
    const bool direct = tile_off(device, options, filter_width);
    const bool vectors = vector_block(device, options, filter_width);
    const auto [bx, by] = block(device, options, filter_width, vectors);
    const std::string weights_at = weights_place(device, options, filter_width);
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
    //    in_pitch floats apart.
    Launch launch(device);
    const std::size_t in_bytes = sizeof(float) * in_pitch * in_rows;
    const std::size_t row_bytes = sizeof(float) * in.width;
    cl::Buffer input = launch.buffer(CL_MEM_READ_ONLY, in_bytes, "the padded input", in_pitch);
    queue.enqueueFillBuffer(input, 0.0f, 0, in_bytes);
    queue.enqueueWriteBufferRect(input, CL_TRUE, {0, 0, 0}, {0, 0, 0},
                                 {row_bytes, static_cast<std::size_t>(in.height), 1},
                                 sizeof(float) * in_pitch, 0, row_bytes, 0, in.pixels.data());
    // A bank's weights side by side: weight i of filter k at i * bank + k,
    // so that bank.cl reads weight i of every filter as one floatN.
    std::vector<float> weights(filters.size() * problem.filter.weights.size());
    for (std::size_t k = 0; k < filters.size(); ++k)
      for (std::size_t i = 0; i < filters[k].weights.size(); ++i) weights[i * bank + k] = filters[k].weights[i];
    cl::Buffer filter = launch.buffer(CL_MEM_READ_ONLY, weights.size() * sizeof(float), "the filter");
    cl::copy(queue, weights.cbegin(), weights.cend(), filter);
    // The output covers the grid: whole blocks, `bank` floats per pixel.
    const std::size_t out_pitch = grid_w * bank;  // floats per row
    cl::Buffer output = launch.output_buffer(CL_MEM_WRITE_ONLY, sizeof(float) * out_pitch * grid_h,
                                             "the output", out_pitch);

    // 2. The program: the width and the block compile-time constants, and
    //    the options of the tuned choices; a bank builds bank.cl with BANK.
    std::string build_options = "-D FILTER_WIDTH=" + std::to_string(filter_width) +
                                " -D BLOCK_X=" + std::to_string(bx) + " -D BLOCK_Y=" + std::to_string(by);
    std::string kernel_source = source(options), kernel_label = label(options);
    if (bank > 1) {
      if (!options.kernel_source.empty())
        throw UsageError(label(options) + " stands for convolve.cl; --bank " + std::to_string(bank) +
                         " builds bank.cl");
      kernel_source = embedded::step6_bank_kernel;
      kernel_label = "step6-multioutput/bank.cl";
      build_options += " -D BANK=" + std::to_string(bank);
    }
    if (unroll_rows(device, options, filter_width, vectors, weights_at == "inline"))
      build_options += " -D UNROLL_ROWS";
    if (flat_copy(device, options)) build_options += " -D FLAT_COPY";
    if (weights_at == "local") build_options += " -D WEIGHTS_LOCAL";
    if (weights_at == "inline") {
      build_options += " -D WEIGHTS_INLINE";
      kernel_source = "#define FILTER_VALUES " + weight_literals(problem.filter) + "\n" + kernel_source;
    }
    if (vectors) {
      if (bx != 4 && bx != 8 && bx != 16)
        throw UsageError("--shape vectors: the block width must be 4, 8 or 16, not " + std::to_string(bx));
      build_options += " -D VECTOR_BLOCK";
    }
    if (direct) build_options += " -D DIRECT_READS";
    const auto start = std::chrono::steady_clock::now();
    cl::Program program = device.program(kernel_source, build_options, kernel_label);
    const double build_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    if (direct) {  // --tile off: convolve_direct, no tile and no local memory; ranges as below
      cl::KernelFunctor<cl::Buffer, cl::Buffer, cl::Buffer, int, int> convolve_direct(
          make_kernel(program, "convolve_direct", kernel_label));
      check_work_group(device, convolve_direct.getKernel(), options.wg_x, options.wg_y);
      const cl::NDRange local(options.wg_x, options.wg_y);
      const cl::NDRange global(grid_w / bx, grid_h / by);
      launch.run = [=, &queue]() mutable {
        return convolve_direct(cl::EnqueueArgs(queue, global, local), input, filter, output, in_pitch,
                               static_cast<int>(grid_w));
      };
      launch.read = [=, &queue] { return read_planes(queue, output, out_pitch, out_width, out_height, 1); };
      launch.work_group = shape_text(local);
      if (weights_at == "inline") launch.note = build_note(build_ms);
      return launch;
    }
    cl::KernelFunctor<cl::Buffer, cl::Buffer, cl::Buffer, int, int, cl::LocalSpaceArg, int, int> convolve(
        make_kernel(program, "convolve", kernel_label));

    // 3. The ranges: one work-item per block of outputs, in work-groups of
    //    wg_x x wg_y; the grid is whole work-groups, and the blocks past the
    //    image compute values nobody reads.
    check_work_group(device, convolve.getKernel(), options.wg_x, options.wg_y);
    const cl::NDRange local(options.wg_x, options.wg_y);
    const cl::NDRange global(grid_w / bx, grid_h / by);
    const std::string block_text = std::to_string(bx) + "x" + std::to_string(by);
    if (bank > 1)  // the floatN sums of a block, and the tile row
      check_private_memory(device, convolve.getKernel(), static_cast<std::size_t>(options.wg_x) * options.wg_y,
                           "a bank of " + std::to_string(bank) + " with block " + block_text +
                               " and work-group " + shape_text(local),
                           sizeof(float) * (static_cast<std::size_t>(bx) * by * bank + bx + filter_width + 3));
    // The tile: the work-group's blocks plus the filter's reach, in whole float4s.
    const int tile_width = static_cast<int>(round_up(group_w + filter_width - 1, 4));
    const int tile_height = static_cast<int>(group_h) + filter_width - 1;
    const cl::LocalSpaceArg tile =
        local_tile(device, convolve.getKernel(), tile_width, tile_height,
                   "work-group " + shape_text(local) + ", block " + block_text + ", filter " +
                       std::to_string(filter_width));

    // 4. Run: one enqueue of the kernel with its arguments; the event
    //    carries the kernel's start and end times. The output's pitch is in
    //    pixels (bank.cl stores a floatN per pixel).
    launch.run = [=, &queue]() mutable {
      return convolve(cl::EnqueueArgs(queue, global, local), input, filter, output, in_pitch,
                      static_cast<int>(grid_w), tile, tile_width, tile_height);
    };
    // 5. Read: the image's rows out of the wider output buffer; a bank's N
    //    floats per pixel go to N planes, one under another.
    launch.read = [=, &queue] { return read_planes(queue, output, out_pitch, out_width, out_height, bank); };
    launch.work_group = shape_text(local);
    if (weights_at == "inline") launch.note = build_note(build_ms);
    return launch;
  }

 private:
  // --bank: how many filters the pass applies.
  int bank(const RunOptions& options) const { return std::stoi(option(options, "bank")); }

  // The image's rows out of the wider output buffer (out_pitch floats per
  // row); a bank's N floats per pixel go to N planes, one under another.
  static Image read_planes(cl::CommandQueue& queue, const cl::Buffer& output, std::size_t out_pitch,
                           int out_width, int out_height, int bank) {
    const std::size_t image_row = sizeof(float) * out_width * bank;
    std::vector<float> rows(static_cast<std::size_t>(out_width) * bank * out_height);
    queue.enqueueReadBufferRect(output, CL_TRUE, {0, 0, 0}, {0, 0, 0},
                                {image_row, static_cast<std::size_t>(out_height), 1},
                                sizeof(float) * out_pitch, 0, image_row, 0, rows.data());
    Image result(out_width, out_height * bank);
    for (int k = 0; k < bank; ++k)
      for (int y = 0; y < out_height; ++y)
        for (int x = 0; x < out_width; ++x)
          result.at(x, k * out_height + y) = rows[(static_cast<std::size_t>(y) * out_width + x) * bank + k];
    return result;
  }

  static std::string build_note(double build_ms) {
    char text[96];
    std::snprintf(text, sizeof text, "kernel built for this filter's weights in %.1f ms", build_ms);
    return text;
  }

  // --tile, or the tuned default (a bank, or a --kernel file: on). Off
  // needs the weights in constant memory or inline and the block in rows.
  bool tile_off(DeviceContext& device, const RunOptions& options, int F) const {
    const std::string text = option(options, "tile");
    if (text == "off") {
      if (bank(options) > 1)
        throw UsageError("--tile off: --bank " + std::to_string(bank(options)) + " builds bank.cl, which has "
                         "only the tile");
      if (!options.kernel_source.empty())
        throw UsageError("--tile off runs convolve_direct; a --kernel file stands for convolve.cl's convolve");
      for (const auto& [name, refused] : {std::pair<std::string, std::string>{"weights", "local"},
                                          {"shape", "vectors"}})
        if (option(options, name) == refused)
          throw UsageError("--tile off: convolve_direct has no --" + name + " " + refused);
      return true;
    }
    if (text == "on" || bank(options) > 1 || !options.kernel_source.empty()) return false;
    return step6_direct_by_default(device.facts(), F) && option(options, "weights") != "local" &&
           option(options, "shape") != "vectors";
  }

  // bank.cl has one shape of loops: the weights in constant memory, the
  // block in rows, the tile copied by rows; with --bank 2 to 16, auto
  // resolves to those, and anything else is refused.
  void check_bank_options(const RunOptions& options) const {
    const int n = bank(options);
    if (n == 1) return;
    for (const auto& [name, only] : {std::pair<std::string, std::string>{"weights", "constant"},
                                     {"shape", "rows"},
                                     {"copy", "rows"}}) {
      const std::string value = option(options, name);
      if (value != "auto" && value != only)
        throw UsageError("--" + name + " " + value + ": --bank " + std::to_string(n) +
                         " builds bank.cl, which has only --" + name + " " + only);
    }
  }

  // The weights must fit the device's constant memory: the filter, or a
  // bank of `bank` of them.
  static void check_constant_weights(DeviceContext& device, const Filter& filter, int bank) {
    if (bank == 1) return check_constant_filter(device, filter);
    const std::size_t bytes = sizeof(float) * filter.weights.size() * bank;
    const std::size_t limit = device.facts().constant_mem_bytes;
    if (bytes > limit)
      throw Error("a bank of " + std::to_string(bank) + " filters of " + std::to_string(filter.width) + "x" +
                  std::to_string(filter.width) + " needs " + std::to_string(bytes) +
                  " bytes of constant memory, over " + device.facts().name + "'s limit of " +
                  std::to_string(limit) + " bytes (CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE)");
  }

  // --unroll, or the tuned default (the vector shape's loop is unrolled for
  // F <= 31; on a GPU, the rows up to F = 15 when the weights are inline).
  bool unroll_rows(DeviceContext& device, const RunOptions& options, int F, bool vectors,
                   bool weights_inline) const {
    const std::string text = option(options, "unroll");
    if (text != "auto") return text == "on";
    return vectors ? step6_unroll_vectors_by_default(F)
                   : step6_unroll_rows_by_default(device.facts(), F, weights_inline);
  }

  // --copy, or the tuned default (a bank: rows).
  bool flat_copy(DeviceContext& device, const RunOptions& options) const {
    const std::string text = option(options, "copy");
    if (text != "auto") return text == "flat";
    return bank(options) == 1 && step6_flat_copy_by_default(device.facts());
  }

  // --weights, or the tuned default: "constant", "local" or "inline" (a
  // bank: constant).
  std::string weights_place(DeviceContext& device, const RunOptions& options, int F) const {
    const std::string text = option(options, "weights");
    if (text != "auto") return text;
    if (bank(options) > 1) return "constant";
    if (tile_off(device, options, F))  // no local memory without the tile
      return step6_weights_inline_by_default(device.facts(), F) ? "inline" : "constant";
    if (step6_weights_inline_by_default(device.facts(), F)) return "inline";
    return step6_weights_local_by_default(device.facts(), F) ? "local" : "constant";
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

  // --shape, or the tuned default (a bank: rows).
  bool vector_block(DeviceContext& device, const RunOptions& options, int F) const {
    const std::string text = option(options, "shape");
    if (text != "auto") return text == "vectors";
    return bank(options) == 1 && !tile_off(device, options, F) && step6_vector_block_by_default(device.facts(), F);
  }

  // --block, or the first block from the tuned list for this kind of device
  // whose tile (and local weights) fit the device's local memory
  // (bench/experiments.sh tuning on a GPU, blocks on a CPU); for a bank,
  // default_bank_block.
  std::pair<int, int> block(DeviceContext& device, const RunOptions& options, int F, bool vectors) const {
    std::string text = option(options, "block");
    if (text != "auto") {
      auto [bx, by] = parse_size(text, "--block", 16);
      if (bx % 4 != 0)
        throw UsageError("--block: the width must be a multiple of 4, not " + std::to_string(bx));
      return {bx, by};
    }
    if (bank(options) > 1) return default_bank_block(bank(options));
    if (tile_off(device, options, F)) return step6_direct_block(device.facts(), F);
    return step6_block_that_fits(device.facts(), F, vectors, weights_place(device, options, F) == "local",
                                 options.wg_x, options.wg_y);
  }
};

Comparison MultiOutputStep::compare(const Image& output, const Problem& problem,
                                    const Reference& reference) const {
  const int height = problem.out_height();
  int planes = height > 0 && output.height % height == 0 ? output.height / height : 1;
  if (planes != 2 && planes != 4 && planes != 8 && planes != 16) planes = 1;  // not a bank's
  if (planes == 1) return Step::compare(output, problem, reference);
  const std::vector<Filter> filters = step6_bank_filters(problem.filter, planes);
  Comparison all;
  double worst = -1;
  const std::vector<Image> split = split_planes(output, planes);
  for (int k = 0; k < planes; ++k) {
    const Image& plane = split[static_cast<std::size_t>(k)];
    const Comparison c =
        k == 0 ? Step::compare(plane, problem, reference)
               : compare_with_reference(plane, reference_correlate(problem.padded, filters[k]),
                                        problem.filter.width);
    all.max_abs_err = std::max(all.max_abs_err, c.max_abs_err);
    all.max_rel_err = std::max(all.max_rel_err, c.max_rel_err);
    all.bad_pixels += c.bad_pixels;
    // The worst pixel of the worst plane, where it lies in the planes' image.
    const double score = c.bad_pixels > 0 ? INFINITY : c.max_rel_err;
    if (score > worst && c.worst_x >= 0) {
      worst = score;
      all.worst_x = c.worst_x;
      all.worst_y = k * height + c.worst_y;
    }
  }
  return all;
}

}  // namespace

std::unique_ptr<Step> make_step6_multioutput() { return std::make_unique<MultiOutputStep>(); }

}  // namespace conv
