// Step 8's launcher: the filter as a sum of separable terms (decompose.hpp),
// run as a row pass and a column pass per term ("passes"), or as one kernel
// that keeps the intermediate rows in local memory ("fused"). Both use step
// 6's pitched layout, tile, float4 loads and blocks; a pass can also run
// without the tile (convolve_direct: a GPU's passes by default).
#include <algorithm>
#include <cstdlib>
#include <functional>
#include <memory>
#include <numeric>

#include "common/machinery/reference.hpp"
#include "common/core/errors.hpp"
#include "common/machinery/parse.hpp"
#include "common/machinery/settings.hpp"
#include "step8-separable/decompose.hpp"
#include "step8-separable/tuning.hpp"

namespace conv {
namespace embedded {
extern const char* const CLCONV_STEP_KERNEL;
}

namespace {

struct Shape2 {
  int x, y;
};

// The blocks of the kernels without a tile (--rows direct, --columns
// direct, --fused-kernel direct), and whether a GPU's row pass runs without
// one by default (bench/experiments.sh separable-direct;
// docs/step8-separable.md).
constexpr Shape2 kDirectRows{4, 8};
constexpr Shape2 kDirectColumns{4, 16};
constexpr Shape2 kDirectFused{4, 4};
constexpr Shape2 kStripFused{4, 8};
// A GPU's fused kernel for a rank-1 filter from this width on is the strip
// (below it, and for any filter of higher rank, direct): the strip reads
// each row once where the direct kernel repeats the row pass over F - 1
// rows per block, but a term of a higher rank repeats it too
// (separable-strip-h100.csv).
constexpr int kStripFrom = 15;
// The box kernel (convolve_fused_box): its default work-group, the rows of
// column sums it keeps per batch, and the strips down the image per
// compute unit it is launched with.
constexpr int kBoxGroup = 256;
constexpr int kBoxBatch = 32;
constexpr int kBoxGroupsPerUnit = 4;
// A GPU's box kernel work-group: the fastest of 128 to 384 work-items (in
// steps of 32) at each width measured on the H100, the nearest width's for
// the others (bench/experiments.sh separable-box, separable-box-h100.csv).
// No simple rule fits: the strip's width, its rows per batch and the
// registers all move with F and with the work-group.
struct BoxGroup {
  int F, group;
};
constexpr BoxGroup kBoxGroups[] = {{9, 256}, {11, 224}, {15, 192}, {21, 320}, {31, 224}, {45, 320}, {63, 128}};
int box_group(const DeviceFacts& facts, int F) {
  if (!facts.is_gpu) return kBoxGroup;
  BoxGroup best = kBoxGroups[0];
  for (const BoxGroup& g : kBoxGroups)
    if (std::abs(g.F - F) < std::abs(best.F - F)) best = g;
  return F + 3 <= best.group ? best.group : kBoxGroup;  // every column of the strip and its halo
}
// A box runs the box kernel from this width on (below it, what another
// rank-1 filter runs): on a GPU the fused kernel without a tile is faster
// up to F = 7 (separable-box-h100.csv); on a CPU the passes and the box
// kernel are within a few per cent of each other up to 15, and from 21 the
// box kernel takes less than half the time (separable-box-pocl.csv).
int box_from(const DeviceFacts& facts) { return facts.is_gpu ? 9 : 21; }
// The strip kernel's row pass: outputs per task.
constexpr int kStripRowBlock = 8;
constexpr bool kGpuRowsDirect = true;

std::string block_text(Shape2 b) { return std::to_string(b.x) + "x" + std::to_string(b.y); }

// The fused variant's kernels (--fused-kernel): convolve_fused,
// convolve_fused_direct, convolve_fused_strip.
enum class FusedKernel { tile, direct, strip, box };
const char* fused_kernel_name(FusedKernel k) {
  return k == FusedKernel::tile ? "tile" : k == FusedKernel::direct ? "direct" : k == FusedKernel::strip ? "strip" : "box";
}

// The box kernel's geometry for a work-group of `group` work-items (one
// column each) and width F: WIDTH outputs across a strip (a multiple of 4,
// WIDTH + F - 1 <= group), RUNS runs of F rows per unrolled step (a
// batch's worth when F is small), RUN_X outputs per row-pass task (a
// multiple of 4 dividing WIDTH). Each of kBoxBatch rows has WIDTH / RUN_X
// tasks, at most one per work-item: the widest strip whose tasks keep at
// least three quarters of the work-items busy (WIDTH 244, the widest for
// F = 11 and 256 work-items, has only 4 and 244 to divide it by: 32 tasks
// of 244 outputs, and 224 work-items idle in the row pass).
struct BoxShape {
  int width = 0, runs = 1, run_x = 4;
  int rows(int F) const { return runs * F; }
  // __local floats: kBoxBatch column sums per column, or kBoxBatch rows of
  // outputs on their way out, whichever is more.
  std::size_t local_floats(int F) const {
    return std::max<std::size_t>(static_cast<std::size_t>(width + F - 1) * (kBoxBatch + 1),
                                 static_cast<std::size_t>(kBoxBatch) * (width + 1));
  }
};
BoxShape box_shape(int group, int F) {
  BoxShape s;
  s.runs = std::max(1, kBoxBatch / F);
  for (int width = (group - F + 1) / 4 * 4; width >= 4; width -= 4) {
    int run_x = 4;
    while (run_x <= width && (width % run_x != 0 || kBoxBatch * (width / run_x) > group)) run_x += 4;
    if (run_x > width) continue;
    const int tasks = kBoxBatch * (width / run_x);
    if (4 * tasks >= 3 * group || width == 4) {
      s.width = width, s.run_x = run_x;
      break;
    }
  }
  if (s.width == 0)  // no strip fits the group
    throw UsageError("the box kernel needs a work-group of at least max(F + 3, " + std::to_string(kBoxBatch) +
                     ") = " + std::to_string(std::max(F + 3, kBoxBatch)) +
                     " work-items (one per column of a strip and its halo, one per row-pass task), not " +
                     std::to_string(group));
  return s;
}

// The strip kernel's ring of row sums for a work-group of wg_x x wg_y and
// block b: the chunk's rows (wg_y * b.y) and the filter's halo, each
// wg_x * b.x sums wide.
std::size_t strip_ring_rows(int wg_y, Shape2 b, int F) { return static_cast<std::size_t>(wg_y) * b.y + F - 1; }
std::size_t strip_ring_bytes(int wg_x, int wg_y, Shape2 b, int F) {
  return sizeof(float) * static_cast<std::size_t>(wg_x) * b.x * strip_ring_rows(wg_y, b, F);
}

// A rank-1 filter whose row weights are all one number and column weights
// too: a box. (The SVD of a box gives equal floats; a filter that merely
// looks like one is taken at its exact weights.)
bool equal_weights(const SeparableFilter& s) {
  auto all_one = [](const std::vector<float>& w) {
    return std::all_of(w.begin(), w.end(), [&](float x) { return x == w.front(); });
  };
  return s.rank == 1 && all_one(s.rows[0]) && all_one(s.columns[0]);
}

// What the settings resolve to for one filter on one device.
struct Choices {
  bool fused = false;
  bool rows_direct = false, columns_direct = false;  // variant passes: convolve_direct
  FusedKernel fused_kernel = FusedKernel::tile;      // variant fused: which kernel
  bool box() const { return fused && fused_kernel == FusedKernel::box; }
  Shape2 b{4, 1}, cb{4, 1};                          // the row pass's (and fused's), the column pass's
  bool unroll = true;
};

// One pass of the chain, enqueued with what changes from term to term: the
// term's filter and the accumulate flag (the column passes after the first
// add to the output).
using Pass = std::function<cl::Event(const cl::Buffer& filter, int accumulate)>;

class ThisStep : public Step {
 public:
  std::string name() const override { return CLCONV_STEP_NAME; }
  std::string summary() const override {
    return "separable terms (SVD): a row pass and a column pass of F taps each, not F x F";
  }
  // auto: the faster of the two for this filter's width and rank on this
  // device type (fused_wins below).
  std::pair<int, int> default_work_group(const DeviceFacts& facts, const Filter& filter,
                                         const RunOptions& options) const override {
    // The box kernel: a row of work-items (any shape runs as one row of
    // W x H), one per column; on a GPU as many as box_group() says.
    RunOptions o = options;
    o.wg_x = 32, o.wg_y = 4;
    try {
      if (choose(facts, o, separate(filter)).box())
        return {box_group(facts, filter.width), 1};
    } catch (const Error&) {  // prepare() says what is wrong
    }
    // bench/experiments.sh separable-blocks (GPU) and the CPU's one-run ratios
    // (docs/step8-separable.md).
    return facts.is_gpu ? std::pair<int, int>{32, 4} : std::pair<int, int>{32, 8};
  }
  // The options each variant uses (StepOption::used_by; empty: all): a
  // setting the chosen variant ignores is refused. auto may run either.
  std::vector<StepOption> options() const override {
    return {{"variant", "Kernel variant: passes (a row pass and a column pass per term), fused (one "
                        "kernel, the rows in local memory) or auto (the faster for this filter here)",
             "auto", {"auto", "passes", "fused"}, {}},
            {"block", "Outputs per work-item WxH, W a multiple of 4, of the row pass and the fused "
                      "kernel (default: the first of 4x8 (a GPU's row pass only), 4x4, 4x2, 4x1 whose tiles fit "
                      "local memory; " + block_text(kDirectRows) + " with --rows direct, " + block_text(kDirectFused) +
                      " with --fused-kernel direct below F = 15, 4x16 up to 31, 4x32 above; " + block_text(kStripFused) +
                      " with --fused-kernel strip, shorter where its ring would not fit)",
             "auto", {}, {"8x1", "4x8"}, auto_or_block(32)},
            {"fused-kernel", "The fused variant's kernel: tile (convolve_fused, through local memory), direct "
                             "(convolve_fused_direct, through the caches; default block " + block_text(kDirectFused) +
                             " below F = 15, taller above), strip (convolve_fused_strip, a work-group walking down "
                             "a strip with a ring of row sums in local memory; default block " +
                             block_text(kStripFused) + ", shorter where the ring would not fit), box "
                             "(convolve_fused_box, a box filter only: column sums in registers, then the rows, adds "
                             "only; its work-group WxH runs as one row of W*H work-items; default " +
                             std::to_string(kBoxGroup) + "x1, on a GPU 128x1 to 384x1 as measured per width), "
                             "or auto (box for a box from F = 9 on a GPU, 21 on a CPU; on a GPU strip for "
                             "another rank-1 filter from F = " + std::to_string(kStripFrom) +
                             ", direct otherwise; tile on a CPU)",
             "auto", {}, {"direct", "strip"}, one_of({"auto", "tile", "direct", "strip", "box"}), {"auto", "fused"}},
            {"column-block", "The column pass's outputs per work-item WxH (variant passes; default: "
                             "the first of 4x16, 4x8 (on a GPU only), 4x4, 4x2, 4x1 that fits local memory; " +
                             block_text(kDirectColumns) + " with --columns direct)", "auto", {}, {"4x8", "4x16"},
             auto_or_block(32), {"auto", "passes"}},
            {"rows", std::string("The row pass's kernel (variant passes): tile (convolve, through local memory), "
                                 "direct (convolve_direct, through the caches), or auto (") +
                         (kGpuRowsDirect ? "direct" : "tile") + " on a GPU, tile on a CPU)",
             "auto", {}, {"direct"}, one_of({"auto", "tile", "direct"}), {"auto", "passes"}},
            {"columns", "The column pass's kernel (variant passes): tile, direct, or auto (direct on a GPU, "
                        "tile on a CPU)",
             // Free text, so the suites run only direct: tile is what auto
             // already runs on the CPUs and Oclgrind they run on.
             "auto", {}, {"direct"}, one_of({"auto", "tile", "direct"}), {"auto", "passes"}},
            {"unroll", "Unroll the loop over tile rows (each pass's code grows with F only): on, off, "
                       "or auto (tuned per device type)",
             // No choices listed, so the suites do not run each one: on a CPU, auto
             // already builds both (the passes unrolled, the fused kernel not).
             "auto", {}, {}, one_of({"auto", "on", "off"})}};
  }
  std::string embedded_source() const override { return embedded::CLCONV_STEP_KERNEL; }
  bool exact_sums() const override { return false; }

  Comparison compare(const Image& output, const Problem& problem,
                     const Reference& reference) const override {
    return compare_separable(output, problem.padded, separate(problem.filter), reference);
  }

  Launch prepare(DeviceContext& device, const Problem& problem, const RunOptions& options) override {
    cl::CommandQueue& queue = device.queue();
    const Image& in = problem.padded;
    const int F = problem.filter.width;
    const int out_width = problem.out_width(), out_height = problem.out_height();
    const SeparableFilter terms = separate(problem.filter);
    const Choices c = choose(device.facts(), options, terms);
    // The row pass (and the fused kernel) uses block b, the column pass cb.
    const Shape2 b = c.b;
    const Shape2 cb = c.cb;
    // The box kernel: a strip box.width outputs wide per work-group, rows one by one.
    // Its work-group is one row of wg_x * wg_y work-items, one per column.
    const int box_group = options.wg_x * options.wg_y;
    BoxShape box;
    if (c.box()) box = box_shape(box_group, F);
    const std::size_t group_w = c.box() ? box.width : static_cast<std::size_t>(options.wg_x) * b.x;
    const std::size_t group_h = c.box() ? 1 : static_cast<std::size_t>(options.wg_y) * b.y;
    const std::size_t column_group_w = c.box() ? group_w : static_cast<std::size_t>(options.wg_x) * cb.x;
    const std::size_t column_group_h = c.box() ? 1 : static_cast<std::size_t>(options.wg_y) * cb.y;
    // Whole groups of both passes across; whole column-pass groups down.
    const std::size_t grid_w = round_up(out_width, std::lcm(group_w, column_group_w));
    const std::size_t grid_h = round_up(out_height, c.fused ? group_h : column_group_h);
    // The row pass covers every padded row the column pass reads.
    const std::size_t mid_rows = round_up(grid_h + F - 1, group_h);
    // Step 6's pitched layout: rows aligned to 128 bytes, with room for
    // whole float4s past the image; the output is the grid, grid_w floats
    // per row.
    const int in_pitch = static_cast<int>(round_up(grid_w + F + 2, 32));  // floats per row
    // The box kernel's strips: `steps` unrolled steps of box.rows(F) rows
    // each, `down` strips down; each reads F rows past its outputs.
    const int box_steps = c.box() ? box_strip_steps(device.facts(), grid_w / group_w, grid_h, box.rows(F)) : 0;
    const std::size_t box_down = c.box() ? (grid_h + box_steps * box.rows(F) - 1) / (box_steps * box.rows(F)) : 0;
    const std::size_t in_rows = c.box()  ? box_down * box_steps * box.rows(F) + F
                                : c.fused ? grid_h + F - 1
                                          : mid_rows;
    const int out_pitch = static_cast<int>(grid_w);
    const std::size_t out_rows = grid_h;

    // 1. Buffers: the padded image goes in pitched (zeros, then the image's
    //    rows written in_pitch floats apart); the output is read and written,
    //    because the column passes of terms 2..k add to it.
    Launch launch(device);
    const std::size_t in_bytes = sizeof(float) * in_pitch * in_rows;
    const std::size_t in_row_bytes = sizeof(float) * in.width;
    cl::Buffer input = launch.buffer(CL_MEM_READ_ONLY, in_bytes, "the padded input", in_pitch);
    queue.enqueueFillBuffer(input, 0.0f, 0, in_bytes);
    queue.enqueueWriteBufferRect(input, CL_TRUE, {0, 0, 0}, {0, 0, 0},
                                 {in_row_bytes, static_cast<std::size_t>(in.height), 1},
                                 sizeof(float) * in_pitch, 0, in_row_bytes, 0, in.pixels.data());
    cl::Buffer output = launch.output_buffer(CL_MEM_READ_WRITE, sizeof(float) * out_pitch * out_rows,
                                             "the output", out_pitch);

    // 2. The programs. The work-group's shape is compiled in, so each
    //    work-item's tile loads are a fixed number it can issue at once
    //    (convolve.cl); so are the filter's width and the blocks.
    const std::string wg = std::to_string(options.wg_x) + "x" + std::to_string(options.wg_y);
    const std::string common = " -D FILTER_WIDTH=" + std::to_string(F) +
                               " -D WG_X=" + std::to_string(options.wg_x) +
                               " -D WG_Y=" + std::to_string(options.wg_y) +
                               (c.unroll ? " -D UNROLL_ROWS" : "");
    auto blocks_of = [&](Shape2 bb) {
      return common + " -D BLOCK_X=" + std::to_string(bb.x) + " -D BLOCK_Y=" + std::to_string(bb.y);
    };
    const std::string blocks = blocks_of(b);
    const int rank = terms.rank;
    const cl::NDRange local(options.wg_x, options.wg_y);

    if (c.fused) {
      // The fused kernel's weights, in constant memory: per term, F row
      // weights and then F column weights.
      std::vector<float> weights;
      for (int t = 0; t < rank; ++t) {
        weights.insert(weights.end(), terms.rows[t].begin(), terms.rows[t].end());
        weights.insert(weights.end(), terms.columns[t].begin(), terms.columns[t].end());
      }
      check_constant_bytes(device, weights.size() * sizeof(float), rank);
      const bool strip = c.fused_kernel == FusedKernel::strip;
      const std::string box_defines =
          " -D BOX -D WIDTH=" + std::to_string(box.width) + " -D BATCH=" + std::to_string(kBoxBatch) +
          " -D RUN_X=" + std::to_string(box.run_x) + " -D RUNS=" + std::to_string(box.runs);
      cl::Buffer filter =
          launch.buffer(CL_MEM_READ_ONLY, weights.size() * sizeof(float), "the terms' weights");
      cl::copy(queue, weights.cbegin(), weights.cend(), filter);
      cl::Program program = device.program(
          source(options),
          "-D TAPS_X=1 -D TAPS_Y=1" + blocks + (c.fused_kernel == FusedKernel::direct ? " -D DIRECT_PASS" : "") +
              (strip ? " -D STRIP -D RING=" + std::to_string(strip_ring_rows(options.wg_y, b, F)) +
                                   " -D ROW_BLOCK=" + std::to_string(strip_row_block(group_w))
                             : "") + (c.box() ? box_defines : ""),
          label(options));
      require_convolve(program, options);

      // 3. The range: one work-item per block of outputs over the grid.
      const cl::NDRange global(grid_w / b.x, grid_h / b.y);

      // 4. Run: one kernel, both passes of every term.
      if (c.box()) {  // a box: column sums in registers, then the rows
        cl::KernelFunctor<cl::Buffer, cl::Buffer, cl::Buffer, int, int, int, int, cl::LocalSpaceArg> fused(
            make_kernel(program, "convolve_fused_box", label(options)));
        check_work_group(device, fused.getKernel(), box_group, 1);
        const std::size_t batch_bytes = sizeof(float) * box.local_floats(F);
        check_local_memory(device, fused.getKernel(), batch_bytes,
                           "the box kernel's " + std::to_string(kBoxBatch) + " column sums of " +
                               std::to_string(box.width + F - 1) + " columns (work-group " + wg + ", filter " +
                               std::to_string(F) + ")");
        const cl::NDRange strips(grid_w / group_w * box_group, box_down);
        const cl::LocalSpaceArg batch = cl::Local(batch_bytes);
        const int rows = static_cast<int>(grid_h), steps = box_steps;
        launch.run = [=, &queue]() mutable {
          return fused(cl::EnqueueArgs(queue, strips, cl::NDRange(box_group, 1)), input, filter, output, in_pitch,
                       out_pitch, steps, rows, batch);
        };
        launch.note = "strips " + std::to_string(box.width) + " wide and " + std::to_string(box_steps * box.rows(F)) +
                      " rows high, adds only";
      } else if (strip) {  // down a strip, its row sums in a ring in local memory
        cl::KernelFunctor<cl::Buffer, cl::Buffer, cl::Buffer, int, int, int, int, int, cl::LocalSpaceArg> fused(
            make_kernel(program, "convolve_fused_strip", label(options)));
        check_work_group(device, fused.getKernel(), options.wg_x, options.wg_y);
        const std::size_t ring_bytes = strip_ring_bytes(options.wg_x, options.wg_y, b, F);
        check_local_memory(device, fused.getKernel(), ring_bytes,
                           "the strip kernel's " + std::to_string(strip_ring_rows(options.wg_y, b, F)) +
                               " rows of " + std::to_string(group_w) +
                               " row sums (work-group " + wg + ", block " + block_text(b) + ", filter " +
                               std::to_string(F) + ")");
        const int strip_height = strip_rows(device.facts(), grid_w / group_w, grid_h, group_h);
        const cl::NDRange strips(grid_w / b.x, (grid_h + strip_height - 1) / strip_height * options.wg_y);
        const cl::LocalSpaceArg sums = cl::Local(ring_bytes);
        const int rows = static_cast<int>(grid_h);
        launch.run = [=, &queue]() mutable {
          return fused(cl::EnqueueArgs(queue, strips, local), input, filter, output, in_pitch, out_pitch, rank,
                       strip_height, rows, sums);
        };
        launch.note = "strips of " + std::to_string(strip_height) + " rows";
      } else if (c.fused_kernel == FusedKernel::direct) {  // without a tile, through the caches
        cl::KernelFunctor<cl::Buffer, cl::Buffer, cl::Buffer, int, int, int> fused(
            make_kernel(program, "convolve_fused_direct", label(options)));
        check_work_group(device, fused.getKernel(), options.wg_x, options.wg_y);
        launch.run = [=, &queue]() mutable {
          return fused(cl::EnqueueArgs(queue, global, local), input, filter, output, in_pitch, out_pitch,
                       rank);
        };
      } else {  // the tile and its row sums in local memory
        cl::KernelFunctor<cl::Buffer, cl::Buffer, cl::Buffer, int, int, int, cl::LocalSpaceArg, cl::LocalSpaceArg>
            fused(make_kernel(program, "convolve_fused", label(options)));
        check_work_group(device, fused.getKernel(), options.wg_x, options.wg_y);
        const int tile_width = static_cast<int>(round_up(group_w + F - 1, 4));
        const int tile_height = static_cast<int>(group_h) + F - 1;
        const std::size_t tile_bytes = sizeof(float) * tile_width * tile_height;
        const std::size_t sums_bytes = sizeof(float) * group_w * tile_height;
        check_local_memory(device, fused.getKernel(), tile_bytes + sums_bytes,
                           "the fused kernel's " + std::to_string(tile_width) + "x" +
                               std::to_string(tile_height) + " tile and its row sums (work-group " + wg +
                               ", block " + block_text(b) + ", filter " + std::to_string(F) + ")");
        const cl::LocalSpaceArg tile = cl::Local(tile_bytes), row_sums = cl::Local(sums_bytes);
        launch.run = [=, &queue]() mutable {
          return fused(cl::EnqueueArgs(queue, global, local), input, filter, output, in_pitch, out_pitch,
                       rank, tile, row_sums);
        };
      }
    } else {
      // The passes' filters: one buffer of F weights per pass and term.
      std::vector<cl::Buffer> row_filters, column_filters;
      for (int t = 0; t < rank; ++t) {
        const std::string term = " of term " + std::to_string(t + 1);
        row_filters.push_back(launch.buffer(CL_MEM_READ_ONLY, sizeof(float) * F, "the row filter" + term));
        cl::copy(queue, terms.rows[t].cbegin(), terms.rows[t].cend(), row_filters.back());
        column_filters.push_back(
            launch.buffer(CL_MEM_READ_ONLY, sizeof(float) * F, "the column filter" + term));
        cl::copy(queue, terms.columns[t].cbegin(), terms.columns[t].cend(), column_filters.back());
      }
      // The row pass's output and the column pass's input, grid_w floats per
      // row. Filled once, though the row pass writes every float of it:
      // without this, Oclgrind reports the column pass's tile loads from it
      // as uninitialized, which we have not explained (docs/reliability.md).
      const std::size_t mid_bytes = sizeof(float) * grid_w * mid_rows;
      cl::Buffer mid =
          launch.buffer(CL_MEM_READ_WRITE, mid_bytes, "the intermediate image of the row pass", grid_w);
      queue.enqueueFillBuffer(mid, 0.0f, 0, mid_bytes);
      const int mid_pitch = static_cast<int>(grid_w);

      // Each pass is the same source built twice, its window F x 1 or
      // 1 x F; a pass without the tile is convolve_direct, built only where
      // one runs.
      const std::string F_text = std::to_string(F);
      const char* direct = " -D DIRECT_PASS";
      cl::Program row_program = device.program(
          source(options), "-D TAPS_X=" + F_text + " -D TAPS_Y=1" + blocks + (c.rows_direct ? direct : ""),
          label(options));
      cl::Program column_program = device.program(
          source(options),
          "-D TAPS_X=1 -D TAPS_Y=" + F_text + blocks_of(cb) + (c.columns_direct ? direct : ""),
          label(options));
      if (c.rows_direct && c.columns_direct) require_convolve(column_program, options);
      cl::Kernel row_kernel =
          make_kernel(row_program, c.rows_direct ? "convolve_direct" : "convolve", label(options));
      cl::Kernel column_kernel =
          make_kernel(column_program, c.columns_direct ? "convolve_direct" : "convolve", label(options));

      // 3. The ranges: one work-item per block of outputs; the row pass
      //    over every row of `mid`, the column pass over the grid.
      const cl::NDRange row_global(grid_w / b.x, mid_rows / b.y);
      const cl::NDRange column_global(grid_w / cb.x, grid_h / cb.y);

      // A pass from `from` (from_pitch floats per row) into `to`: with the
      // tile, `convolve`; without it, `convolve_direct`. Everything but the
      // term's filter and the accumulate flag is fixed here.
      auto make_pass = [&](const cl::Kernel& kernel, bool without_tile, const cl::NDRange& global,
                           const cl::Buffer& from, int from_pitch, const cl::Buffer& to, int to_pitch,
                           int tile_width, int tile_height) -> Pass {
        check_work_group(device, kernel, options.wg_x, options.wg_y);
        if (without_tile) {
          cl::KernelFunctor<cl::Buffer, cl::Buffer, cl::Buffer, int, int, int> convolve_direct(kernel);
          return [=, &queue](const cl::Buffer& filter, int accumulate) mutable {
            return convolve_direct(cl::EnqueueArgs(queue, global, local), from, filter, to, from_pitch,
                                   to_pitch, accumulate);
          };
        }
        const cl::LocalSpaceArg tile = local_tile(device, kernel, tile_width, tile_height,
                                                  "work-group " + wg + ", filter " + F_text);
        cl::KernelFunctor<cl::Buffer, cl::Buffer, cl::Buffer, int, int, cl::LocalSpaceArg, int> convolve(kernel);
        return [=, &queue](const cl::Buffer& filter, int accumulate) mutable {
          return convolve(cl::EnqueueArgs(queue, global, local), from, filter, to, from_pitch, to_pitch, tile,
                          accumulate);
        };
      };
      const Pass rows = make_pass(row_kernel, c.rows_direct, row_global, input, in_pitch, mid, mid_pitch,
                                  static_cast<int>(round_up(group_w + F - 1, 4)), static_cast<int>(group_h));
      const Pass columns = make_pass(column_kernel, c.columns_direct, column_global, mid, mid_pitch, output,
                                     out_pitch, static_cast<int>(column_group_w),
                                     static_cast<int>(column_group_h) + F - 1);

      // 4. Run: a row pass and a column pass per term; the time runs from
      //    the first row pass's start to the last column pass's end.
      auto first = std::make_shared<cl::Event>();
      launch.run = [=] {
        cl::Event last;
        for (int t = 0; t < rank; ++t) {
          last = rows(row_filters[static_cast<std::size_t>(t)], 0);
          if (t == 0) *first = last;
          last = columns(column_filters[static_cast<std::size_t>(t)], t > 0 ? 1 : 0);
        }
        return last;
      };
      launch.elapsed = [first](const cl::Event& last) { return span_ms(*first, last); };
    }

    // 5. Read: the output's rows, out_pitch floats apart, into an image.
    launch.read = [=, &queue] {
      Image result(out_width, out_height);
      const std::size_t row_bytes = sizeof(float) * out_width;
      queue.enqueueReadBufferRect(output, CL_TRUE, {0, 0, 0}, {0, 0, 0},
                                  {row_bytes, static_cast<std::size_t>(out_height), 1},
                                  sizeof(float) * out_pitch, 0, row_bytes, 0, result.pixels.data());
      return result;
    };
    launch.work_group = shape_text(local);
    launch.note = describe_work(terms) + (launch.note.empty() ? "" : "; " + launch.note);
    if (variant(options) == "auto")
      launch.note += c.fused ? "; variant auto runs fused" : "; variant auto runs passes";
    return launch;
  }

  // The settings, resolved for this filter's terms on a device with these
  // facts.
  Choices choose(const DeviceFacts& facts, const RunOptions& options, const SeparableFilter& terms) const {
    Choices c;
    const int F = terms.width, rank = terms.rank;
    const bool equal = equal_weights(terms);
    const std::string v = variant(options);
    c.fused = v == "fused" || (v == "auto" && fused_wins(facts, F, rank, equal));
    if (c.fused) c.fused_kernel = fused_kernel(facts, options, F, rank, equal);
    if (c.box() && !equal)
      throw UsageError("--fused-kernel box: the filter's weights are not all equal (rank 1, one row weight, "
                       "one column weight), so it is not a box");
    if (!c.fused) {
      c.rows_direct = direct_pass(options, "rows", facts.is_gpu && kGpuRowsDirect);
      c.columns_direct = direct_pass(options, "columns", facts.is_gpu);
    }
    const bool strip = c.fused && c.fused_kernel == FusedKernel::strip;
    c.b = c.box() ? Shape2{1, 1}
        : strip ? strip_block(facts, options, F)
                : block(facts, options, F, c.fused,
                        "block", c.fused ? c.fused_kernel == FusedKernel::direct : c.rows_direct);
    c.cb = c.fused ? c.b : block(facts, options, F, false, "column-block", c.columns_direct);
    c.unroll = unroll_rows(facts, options, c, F);
    return c;
  }

 private:
  // Every step's kernel file holds `convolve` with its arguments; checked
  // here too when the kernels that run are others, so a --kernel file is
  // refused alike whichever of them runs. (Its seventh and last argument is
  // `accumulate`.)
  void require_convolve(const cl::Program& program, const RunOptions& options) const {
    make_kernel(program, "convolve", label(options)).setArg(6, 0);
  }

  // --fused-kernel, or the tuned default: the box kernel for a box from
  // box_from(); on a GPU the strip for another rank-1 filter from
  // kStripFrom, direct otherwise; on a CPU the tile.
  FusedKernel fused_kernel(const DeviceFacts& facts, const RunOptions& options, int F, int rank, bool equal) const {
    const std::string text = option(options, "fused-kernel");
    for (FusedKernel k : {FusedKernel::tile, FusedKernel::direct, FusedKernel::strip, FusedKernel::box})
      if (text == fused_kernel_name(k)) return k;
    if (text != "auto")
      throw UsageError("--fused-kernel must be one of auto, tile, direct, strip, box, not '" + text + "'");
    if (equal && F >= box_from(facts)) return FusedKernel::box;
    if (!facts.is_gpu) return FusedKernel::tile;
    return rank == 1 && F >= kStripFrom ? FusedKernel::strip : FusedKernel::direct;
  }

  // --rows or --columns: whether that kernel runs without a tile.
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
  // output) keeps it longer. On a GPU the kernel without the tile or the
  // strip (kStripFrom) reads the image once and wins longer still: another
  // rank-1 filter up to F = 21, past which the strip's sums cost more than
  // the passes' extra trip through memory, a full-rank filter up to 31
  // (bench/experiments.sh separable-strip, separable-strip-h100.csv; the
  // crossover, bench/crossover.sh, crossover-*.csv). A box from box_from()
  // on runs the box kernel: it reads each image row once per strip and
  // adds a handful of numbers per output whatever F (bench/experiments.sh
  // separable-box).
  static bool fused_wins(const DeviceFacts& facts, int F, int rank, bool equal) {
    if (equal && F >= box_from(facts)) return true;  // the box kernel: one pass, adds only
    if (facts.is_gpu) return rank == 1 ? F <= 21 : F <= 31;
    return rank == 1 ? F <= 3 : F <= 7;
  }

  // --unroll, or the tuned default: on, except the fused kernel on a CPU
  // (bench/experiments.sh separable; docs/step8-separable.md) and the one
  // without a tile on a GPU from F = 9 on: there the unrolled walk down
  // BLOCK_Y + F - 1 rows is slower, and from 15 on it no longer fits the
  // registers (ptxas at box:21: a 2952-byte stack frame of spills, 9.5 ms
  // against 0.56 not unrolled on the H100; separable-fused-widths-h100.csv,
  // separable-fused-spills-h100.txt). The strip's column pass reads local
  // memory, not global, and unrolled it is faster at every width
  // (separable-strip-h100.csv).
  bool unroll_rows(const DeviceFacts& facts, const RunOptions& options, const Choices& c, int F) const {
    const std::string text = option(options, "unroll");
    if (text != "auto" && text != "on" && text != "off")
      throw UsageError("--unroll must be one of auto, on, off, not '" + text + "'");
    if (text != "auto") return text == "on";
    return !c.fused || c.fused_kernel == FusedKernel::strip || (facts.is_gpu && F < 9);
  }

  // The strip kernel's row pass: kStripRowBlock outputs per task, or 4
  // where the strip is not a multiple of it.
  static int strip_row_block(std::size_t strip_width) {
    return strip_width % kStripRowBlock == 0 ? kStripRowBlock : 4;
  }

  // The strip kernel's strip height: tall enough that its halo (F - 1 rows
  // summed twice) is a small part, short enough that there are about eight
  // work-groups per compute unit to spread; a multiple of the chunk.
  static int strip_rows(const DeviceFacts& facts, std::size_t strips_across, std::size_t rows, std::size_t chunk) {
    const std::size_t groups = 8 * std::max(1u, facts.compute_units);
    const std::size_t down = std::max<std::size_t>(1, groups / std::max<std::size_t>(1, strips_across));
    return static_cast<int>(round_up((rows + down - 1) / down, chunk));
  }

  // The box kernel's steps down a strip (each box_rows rows): strips tall
  // enough that the F rows each reads past its outputs are a small part,
  // short enough for kBoxGroupsPerUnit work-groups per compute unit.
  static int box_strip_steps(const DeviceFacts& facts, std::size_t strips_across, std::size_t rows,
                             int box_rows) {
    const std::size_t groups = kBoxGroupsPerUnit * std::max(1u, facts.compute_units);
    const std::size_t down = std::max<std::size_t>(1, groups / std::max<std::size_t>(1, strips_across));
    const std::size_t strip = (rows + down - 1) / down;
    return static_cast<int>(std::max<std::size_t>(1, (strip + box_rows - 1) / box_rows));
  }

  // --block for the strip kernel, or the first of kStripFused and ever
  // shorter blocks whose ring fits.
  Shape2 strip_block(const DeviceFacts& facts, const RunOptions& options, int F) const {
    if (option(options, "block") != "auto") return block(facts, options, F, true, "block", false);
    for (Shape2 b = kStripFused; b.y >= 1; b.y /= 2)
      if (strip_ring_bytes(options.wg_x, options.wg_y, b, F) + 1024 <= facts.local_mem_bytes) return b;  // a KiB spare
    return {kStripFused.x, 1};  // too large even so: prepare() reports the limit
  }

  // The fused kernel without a tile walks BLOCK_Y + F - 1 rows for BLOCK_Y
  // outputs: a taller block spends fewer row passes per output as F grows
  // (separable-fused-widths-h100.csv).
  static Shape2 fused_direct_block(int F) { return F < 15 ? kDirectFused : F <= 31 ? Shape2{4, 16} : Shape2{4, 32}; }

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
    if (direct) return name == "column-block" ? kDirectColumns : is_fused ? fused_direct_block(F) : kDirectRows;
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

std::unique_ptr<Step> make_step8_separable() { return std::make_unique<ThisStep>(); }

Step9Defaults step8_default_settings(const DeviceFacts& facts, const Filter& filter, int wg_x, int wg_y) {
  ThisStep step;
  RunOptions options;
  options.wg_x = wg_x;
  options.wg_y = wg_y;
  const Choices c = step.choose(facts, options, separate(filter));
  Step9Defaults d;
  d.variant = c.fused ? "fused" : "passes";
  d.settings = {{"block", block_text(c.b)}, {"unroll", c.unroll ? "on" : "off"}};
  if (c.fused) d.settings["fused-kernel"] = fused_kernel_name(c.fused_kernel);
  if (c.box()) d.settings.erase("block");  // the box kernel has no block of outputs
  if (!c.fused) {
    d.settings["column-block"] = block_text(c.cb);
    d.settings["rows"] = c.rows_direct ? "direct" : "tile";
    d.settings["columns"] = c.columns_direct ? "direct" : "tile";
  }
  return d;
}

}  // namespace conv
