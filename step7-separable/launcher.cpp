// Step 7's launcher: the filter as a sum of separable terms (decompose.hpp),
// run as a row pass and a column pass per term ("passes"), or as one kernel
// that keeps the intermediate rows in local memory ("fused"). Both use step
// 6's pitched layout, tile, float4 loads and blocks; a pass can also run
// without the tile (convolve_direct: a GPU's passes by default).
#include <numeric>

#include "common/errors.hpp"
#include "common/parse.hpp"
#include "common/step.hpp"
#include "step7-separable/decompose.hpp"
#include "step7-separable/tuning.hpp"

namespace conv {
namespace embedded {
extern const char* const step7_separable_kernel;
}

namespace {

struct Shape2 {
  int x, y;
};

// One kernel of the chain with its ranges; the tile is set per kernel.
struct Pass {
  cl::Kernel kernel;
  cl::NDRange global, local;
  int accumulate_arg = 10;  // convolve's; convolve_direct's is 5
};

// The blocks of the kernels without a tile (--rows direct, --columns
// direct, --fused-kernel direct), and whether a GPU's row pass runs without
// one by default (bench/experiments.sh separable-direct;
// docs/step7-separable.md).
constexpr Shape2 kDirectRows{4, 8};
constexpr Shape2 kDirectColumns{4, 16};
constexpr Shape2 kDirectFused{4, 4};
constexpr bool kGpuRowsDirect = true;

std::string shape_text(Shape2 b) { return std::to_string(b.x) + "x" + std::to_string(b.y); }

// What the settings resolve to for one filter on one device.
struct Choices {
  bool fused = false;
  bool rows_direct = false, columns_direct = false;  // variant passes: convolve_direct
  bool fused_direct = false;                         // variant fused: convolve_fused_direct
  Shape2 b{4, 1}, cb{4, 1};                          // the row pass's (and fused's), the column pass's
  bool unroll = true;
};

class SeparableLaunch : public LegacyLaunch {
 public:
  SeparableLaunch(DeviceContext& device, const Problem& problem, const Layout& layout,
                  SeparableFilter terms)
      : io(device, problem, layout), terms(std::move(terms)) {
    // The column passes of terms 2..k read the output they add to.
    io.output = cl::Buffer(device.context(), CL_MEM_READ_WRITE,
                           io.layout.out_pitch * io.layout.out_rows * sizeof(float));
  }

  cl::Event enqueue(cl::CommandQueue& queue) override {
    cl::Event event;
    if (fused) {
      queue.enqueueNDRangeKernel(fused->kernel, cl::NullRange, fused->global, fused->local, nullptr,
                                 &event);
      first = event;
      return event;
    }
    for (int t = 0; t < terms.rank; ++t) {
      rows.kernel.setArg(1, row_filters[static_cast<std::size_t>(t)]);
      queue.enqueueNDRangeKernel(rows.kernel, cl::NullRange, rows.global, rows.local, nullptr, &event);
      if (t == 0) first = event;
      columns.kernel.setArg(1, column_filters[static_cast<std::size_t>(t)]);
      columns.kernel.setArg(static_cast<cl_uint>(columns.accumulate_arg), t > 0 ? 1 : 0);
      queue.enqueueNDRangeKernel(columns.kernel, cl::NullRange, columns.global, columns.local,
                                 nullptr, &event);
    }
    return event;
  }
  double elapsed_ms(const cl::Event& last) const override { return span_ms(first, last); }
  void poison_output(cl::CommandQueue& queue) override { io.poison_output(queue); }
  Image read_output(cl::CommandQueue& queue) override { return io.read_output(queue); }
  std::string work_group() const override { return wg; }
  std::string note() const override { return describe_work(terms) + chosen; }

  BufferLaunch io;  // the padded input and the output, as step 6 lays them out
  SeparableFilter terms;
  std::vector<cl::Buffer> row_filters, column_filters;  // passes: one per term
  cl::Buffer mid;                                       // passes: the row pass's output
  Pass rows, columns;
  std::unique_ptr<Pass> fused;
  cl::Event first;
  std::string wg;
  std::string chosen;  // variant auto: which kernel it runs
};

cl::NDRange range(std::size_t x, std::size_t y) { return cl::NDRange(x, y); }

class SeparableStep : public Step {
 public:
  std::string name() const override { return "step7-separable"; }
  std::string summary() const override {
    return "separable terms (SVD): a row pass and a column pass of F taps each, not F x F";
  }
  // auto: the faster of the two for this filter's width and rank on this
  // device type (fused_wins below).
  std::pair<int, int> default_work_group(const DeviceFacts& facts, int) const override {
    // bench/experiments.sh separable-blocks (GPU) and the CPU's one-run ratios
    // (docs/step7-separable.md).
    return facts.is_gpu ? std::pair<int, int>{32, 4} : std::pair<int, int>{32, 8};
  }
  std::vector<StepOption> options() const override {
    return {{"variant", "Kernel variant: passes (a row pass and a column pass per term), fused (one "
                        "kernel, the rows in local memory) or auto (the faster for this filter here)",
             "auto", {"auto", "passes", "fused"}, {}},
            {"block", "Outputs per work-item WxH, W a multiple of 4, of the row pass and the fused "
                      "kernel (default: the first of 4x8 (a GPU's row pass only), 4x4, 4x2, 4x1 whose tiles fit "
                      "local memory; " + shape_text(kDirectRows) + " with --rows direct, " + shape_text(kDirectFused) +
                      " with --fused-kernel direct)",
             "auto", {}, {"8x1", "4x8"}},
            {"fused-kernel", "The fused variant's kernel: tile (convolve_fused, through local memory), direct "
                             "(convolve_fused_direct, through the caches; default block " + shape_text(kDirectFused) +
                             "), or auto (direct on a GPU, tile on a CPU)",
             "auto", {}, {"direct"}},
            {"column-block", "The column pass's outputs per work-item WxH (variant passes; default: "
                             "the first of 4x16, 4x8 (on a GPU only), 4x4, 4x2, 4x1 that fits local memory; " +
                             shape_text(kDirectColumns) + " with --columns direct)", "auto", {}, {"4x8", "4x16"}},
            {"rows", std::string("The row pass's kernel (variant passes): tile (convolve, through local memory), "
                                 "direct (convolve_direct, through the caches), or auto (") +
                         (kGpuRowsDirect ? "direct" : "tile") + " on a GPU, tile on a CPU)",
             "auto", {}, {"direct"}},
            {"columns", "The column pass's kernel (variant passes): tile, direct, or auto (direct on a GPU, "
                        "tile on a CPU)",
             // Free text, so the suites run only direct: tile is what auto
             // already runs on the CPUs and Oclgrind they run on.
             "auto", {}, {"direct"}},
            {"unroll", "Unroll the loop over tile rows (each pass's code grows with F only): on, off, "
                       "or auto (tuned per device type)",
             // No choices listed, so the suites do not run each one: on a CPU, auto
             // already builds both (the passes unrolled, the fused kernel not).
             "auto", {}, {}}};
  }
  std::string embedded_source() const override { return embedded::step7_separable_kernel; }
  bool exact_sums() const override { return false; }

  Comparison compare(const Image& output, const Problem& problem,
                     const Reference& reference) const override {
    return compare_separable(output, problem.padded, separate(problem.filter), reference);
  }

  Launch prepare(DeviceContext& device, const Problem& problem, const RunOptions& options) override {
    const int F = problem.filter.width;
    SeparableFilter terms = separate(problem.filter);
    const std::string v = variant(options);
    const Choices c = choose(device.facts(), options, F, terms.rank);
    const bool is_fused = c.fused;
    // The row pass (and the fused kernel) uses block b, the column pass cb.
    const Shape2 b = c.b;
    const Shape2 cb = c.cb;
    const std::size_t group_w = static_cast<std::size_t>(options.wg_x) * b.x;
    const std::size_t group_h = static_cast<std::size_t>(options.wg_y) * b.y;
    const std::size_t column_group_w = static_cast<std::size_t>(options.wg_x) * cb.x;
    const std::size_t column_group_h = static_cast<std::size_t>(options.wg_y) * cb.y;
    // Whole groups of both passes across; whole column-pass groups down.
    const std::size_t grid_w = round_up(problem.out_width(), std::lcm(group_w, column_group_w));
    const std::size_t grid_h = round_up(problem.out_height(), is_fused ? group_h : column_group_h);
    // The row pass covers every padded row the column pass reads.
    const std::size_t mid_rows = round_up(grid_h + F - 1, group_h);
    Layout layout;
    layout.in_pitch = round_up(grid_w + F + 2, 32);
    layout.in_rows = is_fused ? grid_h + F - 1 : mid_rows;
    layout.out_pitch = grid_w;
    layout.out_rows = grid_h;
    auto launch = std::make_unique<SeparableLaunch>(device, problem, layout, std::move(terms));
    const SeparableFilter& s = launch->terms;
    if (v == "auto") launch->chosen = is_fused ? "; variant auto runs fused" : "; variant auto runs passes";
    launch->wg = std::to_string(options.wg_x) + "x" + std::to_string(options.wg_y);
    // The work-group's shape is compiled in, so each work-item's tile loads
    // are a fixed number it can issue at once (convolve.cl).
    const std::string common = " -D ALIGNED_PITCH -D FILTER_WIDTH=" + std::to_string(F) +
                               " -D WG_X=" + std::to_string(options.wg_x) +
                               " -D WG_Y=" + std::to_string(options.wg_y) +
                               (c.unroll ? " -D UNROLL_ROWS" : "");
    auto blocks_of = [&](Shape2 bb) {
      return common + " -D BLOCK_X=" + std::to_string(bb.x) + " -D BLOCK_Y=" + std::to_string(bb.y);
    };
    const std::string blocks = blocks_of(b);
    const auto& ctx = device.context();
    const cl::NDRange local(options.wg_x, options.wg_y);
    const cl::NDRange global(grid_w / b.x, grid_h / b.y);

    if (is_fused) {
      std::vector<float> weights;
      for (int t = 0; t < s.rank; ++t) {
        weights.insert(weights.end(), s.rows[t].begin(), s.rows[t].end());
        weights.insert(weights.end(), s.columns[t].begin(), s.columns[t].end());
      }
      check_constant_bytes(device, weights.size() * sizeof(float), s.rank);
      launch->row_filters.emplace_back(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                                       weights.size() * sizeof(float), weights.data());
      cl::Program program = device.program(
          source(options), "-D TAPS_X=1 -D TAPS_Y=1" + blocks + (c.fused_direct ? " -D DIRECT_PASS" : ""),
          label(options));
      // Every step's kernel file holds `convolve` with its arguments; checked
      // here too, so a --kernel file is refused alike whichever variant runs.
      make_kernel(program, "convolve", label(options)).setArg(10, 0);
      launch->fused = std::make_unique<Pass>(Pass{
          make_kernel(program, c.fused_direct ? "convolve_fused_direct" : "convolve_fused", label(options)),
          global, local});
      cl::Kernel& k = launch->fused->kernel;
      check_work_group(device, k, options.wg_x, options.wg_y);
      if (c.fused_direct) {  // no tile: (input, weights, output, in_pitch, out_pitch, rank)
        k.setArg(0, launch->io.input);
        k.setArg(1, launch->row_filters.front());
        k.setArg(2, launch->io.output);
        k.setArg(3, static_cast<int>(layout.in_pitch));
        k.setArg(4, static_cast<int>(layout.out_pitch));
        k.setArg(5, s.rank);
        return adopt(device, std::move(launch));
      }
      const int tile_width = static_cast<int>(round_up(group_w + F - 1, 4));
      const int tile_height = static_cast<int>(group_h) + F - 1;
      const std::size_t tile_bytes = sizeof(float) * tile_width * tile_height;
      const std::size_t mid_bytes = sizeof(float) * group_w * tile_height;
      check_local_memory(device, k, tile_bytes + mid_bytes,
                         "the fused kernel's " + std::to_string(tile_width) + "x" +
                             std::to_string(tile_height) + " tile and its row sums (work-group " +
                             launch->wg + ", block " + std::to_string(b.x) + "x" +
                             std::to_string(b.y) + ", filter " + std::to_string(F) + ")");
      k.setArg(0, launch->io.input);
      k.setArg(1, launch->row_filters.front());
      k.setArg(2, launch->io.output);
      k.setArg(3, static_cast<int>(layout.in_pitch));
      k.setArg(4, static_cast<int>(layout.out_pitch));
      k.setArg(5, s.rank);
      k.setArg(6, cl::Local(tile_bytes));
      k.setArg(7, tile_width);
      k.setArg(8, tile_height);
      k.setArg(9, cl::Local(mid_bytes));
      return adopt(device, std::move(launch));
    }

    for (int t = 0; t < s.rank; ++t) {
      launch->row_filters.emplace_back(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, F * sizeof(float),
                                       const_cast<float*>(s.rows[t].data()));
      launch->column_filters.emplace_back(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                                          F * sizeof(float), const_cast<float*>(s.columns[t].data()));
    }
    const std::size_t mid_bytes = grid_w * mid_rows * sizeof(float);
    check_buffer_size(device, mid_bytes, "the intermediate image of the row pass");
    launch->mid = cl::Buffer(ctx, CL_MEM_READ_WRITE, mid_bytes);
    // Filled once, though the row pass writes every float of it: without
    // this, Oclgrind reports the column pass's tile loads from `mid` as
    // uninitialized, which we have not explained (docs/reliability.md).
    device.queue().enqueueFillBuffer(launch->mid, 0.0f, 0, mid_bytes);
    const std::string F_text = std::to_string(F);
    // A pass without the tile is convolve_direct, built only where one runs.
    const char* direct = " -D DIRECT_PASS";
    cl::Program row_program = device.program(
        source(options), "-D TAPS_X=" + F_text + " -D TAPS_Y=1" + blocks + (c.rows_direct ? direct : ""),
        label(options));
    cl::Program column_program = device.program(
        source(options), "-D TAPS_X=1 -D TAPS_Y=" + F_text + blocks_of(cb) + (c.columns_direct ? direct : ""),
        label(options));
    // As for the fused kernel: a --kernel file must hold `convolve` even when
    // neither pass runs it.
    if (c.rows_direct && c.columns_direct)
      make_kernel(column_program, "convolve", label(options)).setArg(10, 0);
    launch->rows = Pass{make_kernel(row_program, c.rows_direct ? "convolve_direct" : "convolve", label(options)),
                        range(grid_w / b.x, mid_rows / b.y), local, c.rows_direct ? 5 : 10};
    launch->columns =
        Pass{make_kernel(column_program, c.columns_direct ? "convolve_direct" : "convolve", label(options)),
             range(grid_w / cb.x, grid_h / cb.y), local, c.columns_direct ? 5 : 10};
    // (input, pitch, output, pitch, rows, tile width, tile height) of each pass.
    if (c.rows_direct)
      set_direct_args(device, launch->rows, launch->io.input, layout.in_pitch, launch->mid, grid_w);
    else
      set_pass_args(device, launch->rows, launch->io.input, layout.in_pitch, launch->mid, grid_w,
                    mid_rows, round_up(group_w + F - 1, 4), group_h, F, launch->wg);
    if (c.columns_direct)
      set_direct_args(device, launch->columns, launch->mid, grid_w, launch->io.output, grid_w);
    else
      set_pass_args(device, launch->columns, launch->mid, grid_w, launch->io.output, grid_w, grid_h,
                    column_group_w, column_group_h + F - 1, F, launch->wg);
    return adopt(device, std::move(launch));
  }

  // The settings, resolved for a filter of width F and rank `rank` on a
  // device with these facts.
  Choices choose(const DeviceFacts& facts, const RunOptions& options, int F, int rank) const {
    Choices c;
    const std::string v = variant(options);
    c.fused = v == "fused" || (v == "auto" && fused_wins(facts, F, rank));
    if (c.fused) c.fused_direct = direct_pass(options, "fused-kernel", facts.is_gpu);
    if (!c.fused) {
      c.rows_direct = direct_pass(options, "rows", facts.is_gpu && kGpuRowsDirect);
      c.columns_direct = direct_pass(options, "columns", facts.is_gpu);
    }
    c.b = block(facts, options, F, c.fused, "block", c.fused ? c.fused_direct : c.rows_direct);
    c.cb = c.fused ? c.b : block(facts, options, F, false, "column-block", c.columns_direct);
    c.unroll = unroll_rows(facts, options, c.fused);
    return c;
  }

 private:
  static void set_pass_args(DeviceContext& device, Pass& pass, const cl::Buffer& in, std::size_t in_pitch,
                            const cl::Buffer& out, std::size_t out_pitch, std::size_t out_rows,
                            std::size_t tile_width, std::size_t tile_height, int F,
                            const std::string& wg) {
    cl::Kernel& k = pass.kernel;
    check_work_group(device, k, static_cast<int>(pass.local[0]), static_cast<int>(pass.local[1]));
    const std::size_t tile_bytes = sizeof(float) * tile_width * tile_height;
    check_local_memory(device, k, tile_bytes,
                       "a " + std::to_string(tile_width) + "x" + std::to_string(tile_height) +
                           " tile (work-group " + wg + ", filter " + std::to_string(F) + ")");
    k.setArg(0, in);
    k.setArg(2, out);
    k.setArg(3, static_cast<int>(in_pitch));
    k.setArg(4, static_cast<int>(out_pitch));
    k.setArg(5, static_cast<int>(out_rows));
    k.setArg(6, F);
    k.setArg(7, cl::Local(tile_bytes));
    k.setArg(8, static_cast<int>(tile_width));
    k.setArg(9, static_cast<int>(tile_height));
    k.setArg(10, 0);
  }

  // A pass without the tile: (input, filter, output, in_pitch, out_pitch, accumulate).
  static void set_direct_args(DeviceContext& device, Pass& pass, const cl::Buffer& in, std::size_t in_pitch,
                              const cl::Buffer& out, std::size_t out_pitch) {
    cl::Kernel& k = pass.kernel;
    check_work_group(device, k, static_cast<int>(pass.local[0]), static_cast<int>(pass.local[1]));
    k.setArg(0, in);
    k.setArg(2, out);
    k.setArg(3, static_cast<int>(in_pitch));
    k.setArg(4, static_cast<int>(out_pitch));
    k.setArg(5, 0);
  }

  // --rows, --columns or --fused-kernel: whether that kernel runs without a tile.
  bool direct_pass(const RunOptions& options, const std::string& name, bool by_default) const {
    const std::string text = option(options, name);
    if (text != "auto" && text != "tile" && text != "direct")
      throw UsageError("--" + name + " must be one of auto, tile, direct, not '" + text + "'");
    return text == "auto" ? by_default : text == "direct";
  }

  static void check_constant_bytes(DeviceContext& device, std::size_t bytes, int rank) {
    const std::size_t limit = device.facts().constant_mem_bytes;
    if (bytes > limit)
      throw Error("the fused kernel's " + std::to_string(rank) + " terms need " + std::to_string(bytes) +
                  " bytes of constant memory, over " + device.facts().name + "'s limit of " +
                  std::to_string(limit) + " bytes (CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE)");
  }

  // The fused kernel runs the row pass over F - 1 halo rows too and needs
  // both its tile and its row sums in local memory, so it wins only at small
  // widths, where the intermediate image's round trip through global memory
  // is the larger cost; a full-rank filter (k column passes re-reading the
  // output) keeps it longer. Without the tile (a GPU's default) it reads the
  // image once with no local memory at all, and wins longer still. The
  // widths: the crossover (bench/crossover.sh, docs/results/crossover-*.csv).
  static bool fused_wins(const DeviceFacts& facts, int F, int rank) {
    if (facts.is_gpu) return rank == 1 ? F <= 9 : F <= 15;  // without a tile (--fused-kernel)
    return rank == 1 ? F <= 3 : F <= 7;
  }

  // --unroll, or the tuned default: on, except the fused kernel on a CPU
  // (bench/experiments.sh separable; docs/step7-separable.md).
  bool unroll_rows(const DeviceFacts& facts, const RunOptions& options, bool is_fused) const {
    const std::string text = option(options, "unroll");
    if (text != "auto" && text != "on" && text != "off")
      throw UsageError("--unroll must be one of auto, on, off, not '" + text + "'");
    if (text != "auto") return text == "on";
    return !is_fused || facts.is_gpu;
  }

  // --block or --column-block, or the first of the tuned blocks whose tiles
  // fit local memory (a pass without a tile: its own tuned block).
  Shape2 block(const DeviceFacts& facts, const RunOptions& options, int F, bool is_fused,
               const std::string& name, bool direct) const {
    const std::string text = option(options, name);
    if (text != "auto") {
      auto [bx, by] = parse_size(text, "--" + name, 32);
      if (bx % 4 != 0)
        throw UsageError("--" + name + ": the width must be a multiple of 4, not " + std::to_string(bx));
      return {bx, by};
    }
    if (direct) return name == "column-block" ? kDirectColumns : is_fused ? kDirectFused : kDirectRows;
    // A GPU's passes do best with taller blocks: fewer tile rows loaded per
    // output, most of all in the column pass (bench/experiments.sh
    // separable-blocks).
    const bool gpu = facts.is_gpu;
    std::vector<Shape2> tuned = {{4, 4}, {4, 2}, {4, 1}};
    if (gpu && name == "column-block") tuned.insert(tuned.begin(), {Shape2{4, 16}, Shape2{4, 8}});
    if (gpu && name == "block" && !is_fused) tuned.insert(tuned.begin(), Shape2{4, 8});
    for (Shape2 b : tuned) {
      const std::size_t w = static_cast<std::size_t>(options.wg_x) * b.x;
      const std::size_t h = static_cast<std::size_t>(options.wg_y) * b.y;
      const std::size_t bytes = is_fused ? sizeof(float) * (round_up(w + F - 1, 4) + w) * (h + F - 1)
                                : name == "column-block" ? sizeof(float) * w * (h + F - 1)
                                                         : sizeof(float) * round_up(w + F - 1, 4) * h;
      if (bytes + 1024 <= facts.local_mem_bytes) return b;  // a KiB spare
    }
    return {4, 1};  // too large even so: prepare() reports the limit
  }
};

}  // namespace

std::unique_ptr<Step> make_step7_separable() { return std::make_unique<SeparableStep>(); }

Step7Defaults step7_default_settings(const DeviceFacts& facts, const Filter& filter, int wg_x, int wg_y) {
  SeparableStep step;
  RunOptions options;
  options.wg_x = wg_x;
  options.wg_y = wg_y;
  const Choices c = step.choose(facts, options, filter.width, separate(filter).rank);
  Step7Defaults d;
  d.variant = c.fused ? "fused" : "passes";
  d.settings = {{"block", shape_text(c.b)}, {"unroll", c.unroll ? "on" : "off"}};
  if (c.fused) d.settings["fused-kernel"] = c.fused_direct ? "direct" : "tile";
  if (!c.fused) {
    d.settings["column-block"] = shape_text(c.cb);
    d.settings["rows"] = c.rows_direct ? "direct" : "tile";
    d.settings["columns"] = c.columns_direct ? "direct" : "tile";
  }
  return d;
}

}  // namespace conv
