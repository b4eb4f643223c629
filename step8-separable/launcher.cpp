// Step 8's launcher: the filter as a sum of separable terms (decompose.hpp),
// each a row pass into an intermediate image, `mid`, and a column pass from
// it into the output (the column passes of terms 2..k add to it), with step
// 6's layout, tile and blocks. The method is a point of the search space
// (tuning.hpp): these passes by default, else a candidate kernel.
#include "common/core/errors.hpp"
#include "common/machinery/parse.hpp"
#include "common/machinery/settings.hpp"
#include "step8-separable/tuning.hpp"

namespace conv {
namespace embedded {
extern const char* const CLCONV_STEP_KERNEL;  // convolve.cl, embedded at build time
}

namespace {

class ThisStep : public SeparableStep {  // its options, work-group and space: tuning.hpp
 public:
  std::string name() const override { return CLCONV_STEP_NAME; }
  std::string summary() const override {
    return "separable terms (SVD): a row pass and a column pass of F taps each, not F x F";
  }
  std::string embedded_source() const override { return embedded::CLCONV_STEP_KERNEL; }
  bool exact_sums() const override { return false; }  // terms: decompose.hpp's bound
  Comparison compare(const Image& output, const Problem& problem, const Reference& reference) const override {
    return compare_separable(output, problem.padded, separate(problem.filter), reference);
  }

  // The lesson's passes, at the point the space resolved (tuning.hpp).
  Launch prepare_passes(DeviceContext& device, const Problem& problem, const RunOptions& options, const TunePoint& point,
                        const SeparableFilter& terms) override {
    cl::CommandQueue& queue = device.queue();
    const Image& in = problem.padded;
    const int out_width = problem.out_width(), out_height = problem.out_height();
    const int filter_width = problem.filter.width;
    int bx = 0, by = 0;  // both passes' block (a lambda below captures them: no structured binding)
    std::tie(bx, by) = size_of(point, "block");
    // The device image's rows: the groups cover a grid of whole blocks,
    // rounded up to the work-group, and each reads up to three floats past
    // its tile to finish its last float4. Rows start on 128 bytes.
    const std::size_t group_w = static_cast<std::size_t>(options.wg_x) * bx;
    const std::size_t group_h = static_cast<std::size_t>(options.wg_y) * by;
    const std::size_t grid_w = round_up(out_width, group_w);
    const std::size_t grid_h = round_up(out_height, group_h);
    const std::size_t reach = grid_w + filter_width + 2;
    const int in_pitch = static_cast<int>(round_up(reach, 32));  // floats per row
    // The row pass covers every padded row the column pass reads.
    const std::size_t in_rows = round_up(grid_h + filter_width - 1, group_h);

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
    const std::size_t out_pitch = grid_w;  // floats per row
    cl::Buffer output = launch.output_buffer(CL_MEM_READ_WRITE, sizeof(float) * out_pitch * grid_h,
                                             "the output", out_pitch);  // read too: terms 2..k add to it
    // Between the passes, `mid`. Filled, though the row pass writes all of it:
    // else Oclgrind reports its loads as uninitialized (docs/reliability.md).
    const std::size_t mid_bytes = sizeof(float) * out_pitch * in_rows;
    cl::Buffer mid = launch.buffer(CL_MEM_READ_WRITE, mid_bytes, "the intermediate image", out_pitch);
    queue.enqueueFillBuffer(mid, 0.0f, 0, mid_bytes);
    // One buffer of F weights per pass and term.
    std::vector<cl::Buffer> row_filters, column_filters;
    for (int t = 0; t < terms.rank; ++t) {
      row_filters.push_back(launch.buffer(CL_MEM_READ_ONLY, sizeof(float) * filter_width, "a row filter"));
      cl::copy(queue, terms.rows[t].cbegin(), terms.rows[t].cend(), row_filters.back());
      column_filters.push_back(launch.buffer(CL_MEM_READ_ONLY, sizeof(float) * filter_width, "a column filter"));
      cl::copy(queue, terms.columns[t].cbegin(), terms.columns[t].cend(), column_filters.back());
    }

    // 2.-3. Each pass: this source built with its window (F x 1 or 1 x F)
    //    and block; one work-item per block of outputs, over every row of
    //    mid or over the grid. convolve_direct, without a tile, is a candidate.
    const cl::NDRange local(options.wg_x, options.wg_y);
    auto pass = [&](const std::string& kind, int taps_x, int taps_y, std::size_t rows, const cl::Buffer& from,
                    int from_pitch, const cl::Buffer& to) -> Pass {
      const std::string build_options =
          "-D FILTER_WIDTH=" + std::to_string(filter_width) + " -D TAPS_X=" + std::to_string(taps_x) +
          " -D TAPS_Y=" + std::to_string(taps_y) + " -D BLOCK_X=" + std::to_string(bx) +
          " -D BLOCK_Y=" + std::to_string(by) + (point.at("unroll") == "on" ? " -D UNROLL_ROWS" : "");
      const cl::NDRange global(grid_w / bx, rows / by);
      const int to_pitch = static_cast<int>(out_pitch);
      if (point.at(kind) == "direct")
        return direct_pass(*this, device, options, build_options, global, local, from, from_pitch, to, to_pitch);
      cl::Program program = device.program(source(options), build_options, label(options));
      cl::KernelFunctor<cl::Buffer, cl::Buffer, cl::Buffer, int, int, cl::LocalSpaceArg, int, int, int> convolve(
          make_kernel(program, "convolve", label(options)));
      check_work_group(device, convolve.getKernel(), options.wg_x, options.wg_y);
      // The tile: the work-group's blocks plus the window's reach, in whole float4s.
      const int tile_width = static_cast<int>(round_up(group_w + taps_x - 1, 4));
      const int tile_height = static_cast<int>(group_h) + taps_y - 1;
      const cl::LocalSpaceArg tile =
          local_tile(device, convolve.getKernel(), tile_width, tile_height,
                     "work-group " + shape_text(local) + ", block " + std::to_string(bx) + "x" +
                         std::to_string(by) + ", filter " + std::to_string(filter_width));
      return [=, &queue](const cl::Buffer& filter, int accumulate) mutable {
        return convolve(cl::EnqueueArgs(queue, global, local), from, filter, to, from_pitch, to_pitch, tile,
                        tile_width, tile_height, accumulate);
      };
    };
    const Pass rows = pass("rows", filter_width, 1, in_rows, input, in_pitch, mid);
    const Pass columns = pass("columns", 1, filter_width, grid_h, mid, static_cast<int>(out_pitch), output);

    // 4. Run: a row pass and a column pass per term; the time runs from the
    //    first row pass's start to the last column pass's end.
    auto first = std::make_shared<cl::Event>();
    launch.run = [=] {
      cl::Event last;
      for (std::size_t t = 0; t < row_filters.size(); ++t) {
        last = rows(row_filters[t], 0);
        if (t == 0) *first = last;
        last = columns(column_filters[t], t > 0 ? 1 : 0);
      }
      return last;
    };
    launch.elapsed = [first](const cl::Event& last) { return span_ms(*first, last); };
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
};

}  // namespace

std::unique_ptr<Step> make_step8_separable() { return std::make_unique<ThisStep>(); }

}  // namespace conv
