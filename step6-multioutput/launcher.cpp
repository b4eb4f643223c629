// Step 6's launcher: as step 5, with each work-item computing a block of
// outputs. The output buffer covers whole blocks (pitch a multiple of 4 and
// of the group's width in outputs), so the kernel stores float4s unguarded;
// the harness reads the image back with enqueueReadBufferRect.
#include <chrono>
#include <cmath>
#include <cstdio>

#include "common/errors.hpp"
#include "common/parse.hpp"
#include "common/step.hpp"
#include "step6-multioutput/tuning.hpp"

namespace conv {
namespace embedded {
extern const char* const step6_multioutput_kernel;
}

bool step6_unroll_rows_by_default(const DeviceFacts& facts, int filter_width, bool weights_inline) {
  if (facts.is_gpu) return filter_width <= (weights_inline ? 15 : 7);
  return filter_width <= 3;
}

bool step6_weights_local_by_default(const DeviceFacts& facts, int filter_width) {
  return facts.is_gpu && filter_width > 7;
}

bool step6_weights_inline_by_default(const DeviceFacts& facts, int filter_width) {
  return facts.is_gpu && filter_width >= 7 && filter_width <= 15;
}

bool step6_flat_copy_by_default(const DeviceFacts& facts) { return facts.is_gpu; }

bool step6_vector_block_by_default(const DeviceFacts& facts, int filter_width) {
  return !facts.is_gpu && filter_width > 3;
}

std::vector<std::pair<int, int>> step6_blocks_by_default(const DeviceFacts& facts, int filter_width,
                                                         bool vectors) {
  // The CPU's choices: the fastest blocks on PoCL at the lessons' 2048x2048
  // (docs/results/blocks2048-pocl.csv): the vector shape 16x8 up to F = 15,
  // 16x4 (as fast, half the tile) above; register rows (F = 3) 16x4.
  if (vectors) {
    if (filter_width <= 15) return {{16, 8}, {16, 4}, {8, 4}, {8, 2}, {4, 1}};
    return {{16, 4}, {8, 4}, {8, 2}, {4, 1}};
  }
  if (!facts.is_gpu) return {{16, 4}, {8, 4}, {4, 4}, {4, 2}, {4, 1}};
  return {{4, 8}, {4, 4}, {4, 2}, {4, 1}};
}

std::pair<int, int> step6_block_that_fits(const DeviceFacts& facts, int F, bool vectors, bool weights_local,
                                          int wg_x, int wg_y) {
  const auto tuned = step6_blocks_by_default(facts, F, vectors);
  const std::size_t weights = weights_local ? sizeof(float) * F * round_up(F, 4) : 0;
  for (auto [bx, by] : tuned) {
    const std::size_t tile = sizeof(float) * round_up(static_cast<std::size_t>(wg_x) * bx + F - 1, 4) *
                                 (static_cast<std::size_t>(wg_y) * by + F - 1) +
                             weights;
    if (tile + 1024 <= facts.local_mem_bytes) return {bx, by};  // a KiB spare
  }
  return tuned.back();  // too large even so: prepare() reports the limit
}

std::map<std::string, std::string> step6_default_settings(const DeviceFacts& facts, int F, int wg_x, int wg_y) {
  const bool vectors = step6_vector_block_by_default(facts, F);
  const std::string weights = step6_weights_inline_by_default(facts, F)  ? "inline"
                              : step6_weights_local_by_default(facts, F) ? "local"
                                                                         : "constant";
  const auto [bx, by] = step6_block_that_fits(facts, F, vectors, weights == "local", wg_x, wg_y);
  const bool unroll = vectors ? F <= 7 : step6_unroll_rows_by_default(facts, F, weights == "inline");
  return {{"block", std::to_string(bx) + "x" + std::to_string(by)},
          {"copy", step6_flat_copy_by_default(facts) ? "flat" : "rows"},
          {"unroll", unroll ? "on" : "off"},
          {"weights", weights},
          {"shape", vectors ? "vectors" : "rows"}};
}

namespace {

// A BufferLaunch that says how long a kernel built for one filter took to build.
struct MultiOutputLaunch : BufferLaunch {
  using BufferLaunch::BufferLaunch;
  std::string build_note;
  std::string note() const override { return build_note; }
};

class MultiOutputStep : public Step {
 public:
  std::string name() const override { return "step6-multioutput"; }
  std::string summary() const override {
    return "register blocking: each work-item computes a block of outputs from registers";
  }
  std::vector<StepOption> options() const override {
    return {{"block",
             "Outputs per work-item WxH, W a multiple of 4 (default: tuned per device type, "
             "docs/step6-multioutput.md)",
             "auto",
             {},
             {"4x1", "8x1", "4x2", "4x3"}},  // each fits 48 KiB with F = 31 and every suite work-group
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
             {}}};
  }
  std::string embedded_source() const override { return embedded::step6_multioutput_kernel; }
  std::pair<int, int> default_work_group(const DeviceFacts& facts, int) const override {
    return facts.is_gpu ? std::pair<int, int>{32, 4} : std::pair<int, int>{16, 16};
  }

  Launch prepare(DeviceContext& device, const Problem& problem, const RunOptions& options) override {
    check_constant_filter(device, problem.filter);
    const int F = problem.filter.width;
    const bool vectors = vector_block(device, options, F);
    auto [bx, by] = block(device, options, F, vectors);
    const std::size_t group_w = static_cast<std::size_t>(options.wg_x) * bx;
    const std::size_t group_h = static_cast<std::size_t>(options.wg_y) * by;
    const std::size_t grid_w = round_up(problem.out_width(), group_w);
    const std::size_t grid_h = round_up(problem.out_height(), group_h);
    Layout layout;
    layout.in_pitch = round_up(grid_w + F + 2, 32);
    layout.in_rows = grid_h + F - 1;
    layout.out_pitch = grid_w;
    layout.out_rows = grid_h;

    auto launch = std::make_unique<MultiOutputLaunch>(device, problem, layout);
    std::string build_options = "-D FILTER_WIDTH=" + std::to_string(F) +
                                      " -D ALIGNED_PITCH -D BLOCK_X=" + std::to_string(bx) +
                                      " -D BLOCK_Y=" + std::to_string(by);
    const std::string weights = weights_place(device, options, F);
    if (unroll_rows(device, options, F, vectors, weights == "inline")) build_options += " -D UNROLL_ROWS";
    if (flat_copy(device, options)) build_options += " -D FLAT_COPY";
    std::string kernel_source = source(options);
    if (weights == "local") build_options += " -D WEIGHTS_LOCAL";
    if (weights == "inline") {
      build_options += " -D WEIGHTS_INLINE";
      kernel_source = "#define FILTER_VALUES " + weight_literals(problem.filter) + "\n" + kernel_source;
    }
    if (vectors) {
      if (bx != 4 && bx != 8 && bx != 16)
        throw UsageError("--shape vectors: the block width must be 4, 8 or 16, not " + std::to_string(bx));
      build_options += " -D VECTOR_BLOCK";
    }
    const auto start = std::chrono::steady_clock::now();
    cl::Program program = device.program(kernel_source, build_options, label(options));
    const double build_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    if (weights == "inline") {
      char text[96];
      std::snprintf(text, sizeof text, "kernel built for this filter's weights in %.1f ms", build_ms);
      launch->build_note = text;
    }
    launch->kernel = make_kernel(program, "convolve", label(options));
    launch->set_standard_args(problem);
    launch->kernel.setArg(4, static_cast<int>(layout.out_pitch));
    const int tile_width = static_cast<int>(round_up(group_w + F - 1, 4));
    const int tile_height = static_cast<int>(group_h) + F - 1;
    const std::size_t tile_bytes = sizeof(float) * tile_width * tile_height;
    launch->set_ranges(device, options.wg_x, options.wg_y, static_cast<int>(grid_w / bx),
                       static_cast<int>(grid_h / by));
    check_local_memory(device, launch->kernel, tile_bytes,
                       "a " + std::to_string(tile_width) + "x" + std::to_string(tile_height) +
                           " tile (work-group " + launch->work_group() + ", block " +
                           std::to_string(bx) + "x" + std::to_string(by) + ", filter " +
                           std::to_string(F) + ")");
    launch->kernel.setArg(7, cl::Local(tile_bytes));
    launch->kernel.setArg(8, tile_width);
    launch->kernel.setArg(9, tile_height);
    return adopt(device, std::move(launch));
  }

 private:
  // --unroll, or the tuned default (the vector shape's loop is unrolled for
  // F <= 7; on a GPU, the rows up to F = 15 when the weights are inline).
  bool unroll_rows(DeviceContext& device, const RunOptions& options, int F, bool vectors,
                   bool weights_inline) const {
    const std::string text = option(options, "unroll");
    if (text != "auto") return text == "on";
    return vectors ? F <= 7 : step6_unroll_rows_by_default(device.facts(), F, weights_inline);
  }

  // --copy, or the tuned default.
  bool flat_copy(DeviceContext& device, const RunOptions& options) const {
    const std::string text = option(options, "copy");
    if (text != "auto") return text == "flat";
    return step6_flat_copy_by_default(device.facts());
  }

  // --weights, or the tuned default: "constant", "local" or "inline".
  std::string weights_place(DeviceContext& device, const RunOptions& options, int F) const {
    const std::string text = option(options, "weights");
    if (text != "auto") return text;
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

  // --shape, or the tuned default.
  bool vector_block(DeviceContext& device, const RunOptions& options, int F) const {
    const std::string text = option(options, "shape");
    if (text != "auto") return text == "vectors";
    return step6_vector_block_by_default(device.facts(), F);
  }

  // --block, or the first block from the tuned list for this kind of device
  // whose tile (and local weights) fit the device's local memory
  // (bench/experiments.sh tuning on a GPU, blocks on a CPU).
  std::pair<int, int> block(DeviceContext& device, const RunOptions& options, int F, bool vectors) const {
    std::string text = option(options, "block");
    if (text != "auto") {
      auto [bx, by] = parse_size(text, "--block", 16);
      if (bx % 4 != 0)
        throw UsageError("--block: the width must be a multiple of 4, not " + std::to_string(bx));
      return {bx, by};
    }
    return step6_block_that_fits(device.facts(), F, vectors, weights_place(device, options, F) == "local",
                                 options.wg_x, options.wg_y);
  }
};

}  // namespace

std::unique_ptr<Step> make_step6_multioutput() { return std::make_unique<MultiOutputStep>(); }

}  // namespace conv
