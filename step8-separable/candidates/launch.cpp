// The host code of step 8's candidate kernels (launch.hpp). The layout is
// the lesson's (launcher.cpp): the padded input in rows in_pitch floats
// apart, the output a grid of whole blocks; the geometry below is
// arithmetic on the work-group, the block and F.
#include "step8-separable/candidates/launch.hpp"

#include <algorithm>
#include <optional>

#include "common/core/errors.hpp"
#include "step8-separable/tuning.hpp"

namespace conv {
namespace embedded {
extern const char* const step8_separable_direct;  // candidates/*.cl, embedded at build time
extern const char* const step8_separable_fused;
extern const char* const step8_separable_strip;
extern const char* const step8_separable_box;
}  // namespace embedded

std::string SeparableStep::tune_kernels() const {
  return embedded_source() + embedded::step8_separable_direct + embedded::step8_separable_fused +
         embedded::step8_separable_strip + embedded::step8_separable_box;
}

namespace {

// The strip kernel's row pass takes kStripRowBlock outputs per task. (The
// box kernel's rows per batch and its strips per compute unit are the
// tuner's: --batch and --strips.)
constexpr int kStripRowBlock = 8;

std::string size_text(std::pair<int, int> s) { return std::to_string(s.first) + "x" + std::to_string(s.second); }

// The box kernel's geometry for a work-group of `group` work-items (one
// column each), width F and `batch` rows of column sums per batch: WIDTH
// outputs across a strip (a multiple of 4, WIDTH + F - 1 <= group), RUNS
// runs of F rows per unrolled step (a batch's worth when F is small),
// RUN_X outputs per row-pass task (a multiple of 4 dividing WIDTH). Each of
// the batch's rows has WIDTH / RUN_X tasks, at most one per work-item: the
// widest strip whose tasks keep at least three quarters of the work-items
// busy. A step of RUNS * F rows is at most four batches (box.cl).
struct BoxShape {
  int width = 0, runs = 1, run_x = 4, batch = 32;
  int rows(int F) const { return runs * F; }
  // __local floats: `batch` column sums per column, or `batch` rows of
  // outputs on their way out, whichever is more.
  std::size_t local_floats(int F) const {
    return std::max<std::size_t>(static_cast<std::size_t>(width + F - 1) * (batch + 1),
                                 static_cast<std::size_t>(batch) * (width + 1));
  }
};
std::optional<BoxShape> box_shape(int group, int F, int batch) {
  BoxShape s;
  s.batch = batch;
  s.runs = std::max(1, batch / F);
  if (s.rows(F) > 4 * batch) return std::nullopt;
  for (int width = (group - F + 1) / 4 * 4; width >= 4; width -= 4) {
    int run_x = 4;
    while (run_x <= width && (width % run_x != 0 || batch * (width / run_x) > group)) run_x += 4;
    if (run_x > width) continue;
    if (4 * batch * (width / run_x) >= 3 * group || width == 4) {
      s.width = width, s.run_x = run_x;
      return s;
    }
  }
  return std::nullopt;  // no strip fits the group
}

// The fused kernel's tile (the group's outputs plus F - 1 both ways, in
// whole float4s across) and its row sums, in bytes.
std::size_t fused_bytes(int F, std::pair<int, int> b, std::pair<int, int> wg) {
  const std::size_t w = static_cast<std::size_t>(wg.first) * b.first, h = static_cast<std::size_t>(wg.second) * b.second;
  return sizeof(float) * (round_up(w + F - 1, 4) + w) * (h + F - 1);
}

// The strip kernel's ring of row sums: the chunk's rows (wg_y * b_y) and
// the filter's halo, each wg_x * b_x sums wide.
std::size_t ring_rows(int F, std::pair<int, int> b, std::pair<int, int> wg) {
  return static_cast<std::size_t>(wg.second) * b.second + F - 1;
}
std::size_t ring_bytes(int F, std::pair<int, int> b, std::pair<int, int> wg) {
  return sizeof(float) * static_cast<std::size_t>(wg.first) * b.first * ring_rows(F, b, wg);
}

// The strip kernel's strip height: tall enough that its halo (F - 1 rows
// summed twice) is a small part, short enough for about eight work-groups
// per compute unit; a multiple of the chunk.
int strip_rows(const DeviceFacts& facts, std::size_t strips_across, std::size_t rows, std::size_t chunk) {
  const std::size_t groups = 8 * std::max(1u, facts.compute_units);
  const std::size_t down = std::max<std::size_t>(1, groups / std::max<std::size_t>(1, strips_across));
  return static_cast<int>(round_up((rows + down - 1) / down, chunk));
}

// The box kernel's steps down a strip (each box_rows rows): strips tall
// enough that the F rows each reads past its outputs are a small part,
// short enough for `per_unit` work-groups per compute unit.
int box_strip_steps(const DeviceFacts& facts, std::size_t strips_across, std::size_t rows, int box_rows,
                    int per_unit) {
  const std::size_t groups = static_cast<std::size_t>(per_unit) * std::max(1u, facts.compute_units);
  const std::size_t down = std::max<std::size_t>(1, groups / std::max<std::size_t>(1, strips_across));
  const std::size_t strip = (rows + down - 1) / down;
  return static_cast<int>(std::max<std::size_t>(1, (strip + box_rows - 1) / box_rows));
}

// A candidate's program: the lesson's kernel file, then the candidate's.
cl::Program candidate_program(const Step& step, DeviceContext& device, const std::string& files,
                              const std::string& build_options) {
  return device.program(step.embedded_source() + "\n" + files, build_options, step.name() + " (candidates)");
}

}  // namespace

std::string candidate_ruled_out(const DeviceFacts& facts, const std::string& kernel, int F, int rank,
                                std::pair<int, int> b, std::pair<int, int> wg, int batch) {
  const std::size_t weights = sizeof(float) * 2 * F * rank;
  if (weights > facts.constant_mem_bytes)
    return "the terms' weights, " + std::to_string(weights) + " bytes, over the constant memory";
  std::size_t local = 0;
  if (kernel == "fused") local = fused_bytes(F, b, wg);
  if (kernel == "strip") local = ring_bytes(F, b, wg);
  if (kernel == "box") {
    if (F > 4 * batch)
      return "batch " + std::to_string(batch) + " too small for the box kernel at F = " + std::to_string(F) +
             ": a step of F rows is at most four batches (F <= " + std::to_string(4 * batch) + ")";
    const auto box = box_shape(wg.first * wg.second, F, batch);
    if (!box)
      return "work-group " + size_text(wg) + " too small for the box kernel: it needs at least max(F + 3, " +
             std::to_string(batch) + ") = " + std::to_string(std::max(F + 3, batch)) +
             " work-items (one per column of a strip and its halo, one per row-pass task)";
    local = sizeof(float) * box->local_floats(F);
  }
  if (local + 1024 > facts.local_mem_bytes)  // a KiB spare for the compiler's own
    return "method " + kernel + ": " + std::to_string(local) + " bytes of local memory, over the local memory";
  return "";
}

Pass direct_pass(const Step& step, DeviceContext& device, const RunOptions& options, const std::string& build_options,
                 const cl::NDRange& global, const cl::NDRange& local, const cl::Buffer& from, int from_pitch,
                 const cl::Buffer& to, int to_pitch) {
  const std::string defines = build_options + " -D WG_X=" + std::to_string(options.wg_x) +
                              " -D WG_Y=" + std::to_string(options.wg_y);
  cl::KernelFunctor<cl::Buffer, cl::Buffer, cl::Buffer, int, int, int> convolve_direct(make_kernel(
      candidate_program(step, device, embedded::step8_separable_direct, defines), "convolve_direct", step.name()));
  check_work_group(device, convolve_direct.getKernel(), options.wg_x, options.wg_y);
  cl::CommandQueue& queue = device.queue();
  return [=, &queue](const cl::Buffer& filter, int accumulate) mutable {
    return convolve_direct(cl::EnqueueArgs(queue, global, local), from, filter, to, from_pitch, to_pitch, accumulate);
  };
}

Launch launch_candidate(const Step& step, DeviceContext& device, const Problem& problem, const RunOptions& options,
                        const TunePoint& point, const SeparableFilter& terms) {
  cl::CommandQueue& queue = device.queue();
  const Image& in = problem.padded;
  const int F = problem.filter.width, rank = terms.rank;
  const int out_width = problem.out_width(), out_height = problem.out_height();
  const std::string kernel = point.at("method");
  const std::pair<int, int> b = size_of(point, "block"), wg{options.wg_x, options.wg_y};
  const std::string wg_text = size_text(wg);
  // The box kernel: a strip box.width outputs wide per work-group, its
  // work-group one row of wg_x * wg_y work-items, one per column.
  const bool is_box = kernel == "box";
  const int box_group = wg.first * wg.second;
  const int batch = std::stoi(point.at("batch")), per_unit = std::stoi(point.at("strips"));
  BoxShape box;
  if (is_box) {
    const auto shape = box_shape(box_group, F, batch);
    if (!shape) throw UsageError(candidate_ruled_out(device.facts(), kernel, F, rank, b, wg, batch));
    box = *shape;
  }
  const std::size_t group_w = is_box ? box.width : static_cast<std::size_t>(wg.first) * b.first;
  const std::size_t group_h = is_box ? 1 : static_cast<std::size_t>(wg.second) * b.second;
  const std::size_t grid_w = round_up(out_width, group_w);
  const std::size_t grid_h = round_up(out_height, group_h);
  const int in_pitch = static_cast<int>(round_up(grid_w + F + 2, 32));  // floats per row, as the lesson's
  // The box kernel's strips: `steps` unrolled steps of box.rows(F) rows
  // each, `down` strips down; each reads F rows past its outputs.
  const int box_steps = is_box ? box_strip_steps(device.facts(), grid_w / group_w, grid_h, box.rows(F), per_unit) : 0;
  const std::size_t box_down = is_box ? (grid_h + box_steps * box.rows(F) - 1) / (box_steps * box.rows(F)) : 0;
  const std::size_t in_rows = is_box ? box_down * box_steps * box.rows(F) + F : grid_h + F - 1;
  const int out_pitch = static_cast<int>(grid_w);

  // Buffers: the padded input, pitched; the output; the terms' weights in
  // constant memory, per term F row weights and then F column weights.
  Launch launch(device);
  const std::size_t in_bytes = sizeof(float) * in_pitch * in_rows;
  const std::size_t in_row_bytes = sizeof(float) * in.width;
  cl::Buffer input = launch.buffer(CL_MEM_READ_ONLY, in_bytes, "the padded input", in_pitch);
  queue.enqueueFillBuffer(input, 0.0f, 0, in_bytes);
  queue.enqueueWriteBufferRect(input, CL_TRUE, {0, 0, 0}, {0, 0, 0},
                               {in_row_bytes, static_cast<std::size_t>(in.height), 1}, sizeof(float) * in_pitch, 0,
                               in_row_bytes, 0, in.pixels.data());
  cl::Buffer output =
      launch.output_buffer(CL_MEM_WRITE_ONLY, sizeof(float) * out_pitch * grid_h, "the output", out_pitch);
  std::vector<float> weights;
  for (int t = 0; t < rank; ++t) {
    weights.insert(weights.end(), terms.rows[t].begin(), terms.rows[t].end());
    weights.insert(weights.end(), terms.columns[t].begin(), terms.columns[t].end());
  }
  if (const std::string why = candidate_ruled_out(device.facts(), kernel, F, rank, b, wg, batch);
      why.find("constant memory") != std::string::npos)
    throw Error(device.facts().name + ": " + why);
  cl::Buffer filter = launch.buffer(CL_MEM_READ_ONLY, weights.size() * sizeof(float), "the terms' weights");
  cl::copy(queue, weights.cbegin(), weights.cend(), filter);

  // The program: the lesson's file (TAPS 1 x 1: its functions only), then
  // the candidate's.
  std::string defines = "-D TAPS_X=1 -D TAPS_Y=1 -D FILTER_WIDTH=" + std::to_string(F) +
                        " -D WG_X=" + std::to_string(wg.first) + " -D WG_Y=" + std::to_string(wg.second) +
                        (point.at("unroll") == "on" ? " -D UNROLL_ROWS" : "");
  defines += is_box ? " -D BLOCK_X=1 -D BLOCK_Y=1" : " -D BLOCK_X=" + std::to_string(b.first) + " -D BLOCK_Y=" +
                                                         std::to_string(b.second);
  const std::string fused = embedded::step8_separable_fused;
  const cl::NDRange local(wg.first, wg.second);
  const cl::NDRange global(grid_w / b.first, grid_h / b.second);
  if (is_box) {  // a box: column sums in registers, then the rows, adds only
    defines += " -D WIDTH=" + std::to_string(box.width) + " -D BATCH=" + std::to_string(batch) +
               " -D RUN_X=" + std::to_string(box.run_x) + " -D RUNS=" + std::to_string(box.runs);
    cl::KernelFunctor<cl::Buffer, cl::Buffer, cl::Buffer, int, int, int, int, cl::LocalSpaceArg> box_kernel(
        make_kernel(candidate_program(step, device, embedded::step8_separable_box, defines), "convolve_fused_box",
                    step.name()));
    check_work_group(device, box_kernel.getKernel(), box_group, 1);
    const std::size_t batch_bytes = sizeof(float) * box.local_floats(F);
    check_local_memory(device, box_kernel.getKernel(), batch_bytes,
                       "the box kernel's " + std::to_string(batch) + " column sums of " +
                           std::to_string(box.width + F - 1) + " columns (work-group " + wg_text + ", filter " +
                           std::to_string(F) + ")");
    const cl::NDRange strips(grid_w / group_w * box_group, box_down);
    const cl::LocalSpaceArg batch = cl::Local(batch_bytes);
    const int rows = static_cast<int>(grid_h), steps = box_steps;
    launch.run = [=, &queue]() mutable {
      return box_kernel(cl::EnqueueArgs(queue, strips, cl::NDRange(box_group, 1)), input, filter, output, in_pitch,
                        out_pitch, steps, rows, batch);
    };
    launch.note = "strips " + std::to_string(box.width) + " wide and " + std::to_string(box_steps * box.rows(F)) +
                  " rows high, adds only";
  } else if (kernel == "strip") {  // down a strip, its row sums in a ring in local memory
    defines += " -D RING=" + std::to_string(ring_rows(F, b, wg)) +
               " -D ROW_BLOCK=" + std::to_string(group_w % kStripRowBlock == 0 ? kStripRowBlock : 4);
    cl::KernelFunctor<cl::Buffer, cl::Buffer, cl::Buffer, int, int, int, int, int, cl::LocalSpaceArg> strip(
        make_kernel(candidate_program(step, device, fused + "\n" + embedded::step8_separable_strip, defines),
                    "convolve_fused_strip", step.name()));
    check_work_group(device, strip.getKernel(), wg.first, wg.second);
    const std::size_t sums_bytes = ring_bytes(F, b, wg);
    check_local_memory(device, strip.getKernel(), sums_bytes,
                       "the strip kernel's " + std::to_string(ring_rows(F, b, wg)) + " rows of " +
                           std::to_string(group_w) + " row sums (work-group " + wg_text + ", block " + size_text(b) +
                           ", filter " + std::to_string(F) + ")");
    const int strip_height = strip_rows(device.facts(), grid_w / group_w, grid_h, group_h);
    const cl::NDRange strips(grid_w / b.first, (grid_h + strip_height - 1) / strip_height * wg.second);
    const cl::LocalSpaceArg sums = cl::Local(sums_bytes);
    const int rows = static_cast<int>(grid_h);
    launch.run = [=, &queue]() mutable {
      return strip(cl::EnqueueArgs(queue, strips, local), input, filter, output, in_pitch, out_pitch, rank,
                   strip_height, rows, sums);
    };
    launch.note = "strips of " + std::to_string(strip_height) + " rows";
  } else if (kernel == "fused-direct") {  // without a tile, through the caches
    cl::KernelFunctor<cl::Buffer, cl::Buffer, cl::Buffer, int, int, int> fused_direct(make_kernel(
        candidate_program(step, device, fused, defines + " -D FUSED_DIRECT"), "convolve_fused_direct", step.name()));
    check_work_group(device, fused_direct.getKernel(), wg.first, wg.second);
    launch.run = [=, &queue]() mutable {
      return fused_direct(cl::EnqueueArgs(queue, global, local), input, filter, output, in_pitch, out_pitch, rank);
    };
  } else {  // fused: the tile and its row sums in local memory
    cl::KernelFunctor<cl::Buffer, cl::Buffer, cl::Buffer, int, int, int, cl::LocalSpaceArg, cl::LocalSpaceArg>
        fused_tile(make_kernel(candidate_program(step, device, fused, defines + " -D FUSED_TILE"), "convolve_fused",
                               step.name()));
    check_work_group(device, fused_tile.getKernel(), wg.first, wg.second);
    const int tile_width = static_cast<int>(round_up(group_w + F - 1, 4));
    const int tile_height = static_cast<int>(group_h) + F - 1;
    const std::size_t tile_bytes = sizeof(float) * tile_width * tile_height;
    const std::size_t sums_bytes = sizeof(float) * group_w * tile_height;
    check_local_memory(device, fused_tile.getKernel(), tile_bytes + sums_bytes,
                       "the fused kernel's " + std::to_string(tile_width) + "x" + std::to_string(tile_height) +
                           " tile and its row sums (work-group " + wg_text + ", block " + size_text(b) +
                           ", filter " + std::to_string(F) + ")");
    const cl::LocalSpaceArg tile = cl::Local(tile_bytes), row_sums = cl::Local(sums_bytes);
    launch.run = [=, &queue]() mutable {
      return fused_tile(cl::EnqueueArgs(queue, global, local), input, filter, output, in_pitch, out_pitch, rank, tile,
                        row_sums);
    };
  }
  launch.read = [=, &queue] {
    Image result(out_width, out_height);
    const std::size_t row_bytes = sizeof(float) * out_width;
    queue.enqueueReadBufferRect(output, CL_TRUE, {0, 0, 0}, {0, 0, 0},
                                {row_bytes, static_cast<std::size_t>(out_height), 1}, sizeof(float) * out_pitch, 0,
                                row_bytes, 0, result.pixels.data());
    return result;
  };
  launch.work_group = is_box ? std::to_string(box_group) + "x1" : wg_text;
  return launch;
}

}  // namespace conv
