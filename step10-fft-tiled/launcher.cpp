// Step 10's launcher: overlap-save in one kernel. It takes the tile (N x N,
// a power of two) from the filter's width and the device's local memory,
// computes the filter's spectrum for that tile once on the host, and
// launches one work-group per pair of tiles (convolve.cl). The tile, its
// layout (the lesson's kernel, or a faster candidate's) and the work-group
// are the step's tuning parameters (tuning.hpp): the documented defaults,
// unless this device has a tuned winner (build/bin/step10-fft-tiled --tune)
// or the options say otherwise.
#include <sstream>

#include "common/machinery/reference.hpp"
#include "common/core/errors.hpp"
#include "common/core/step.hpp"
#include "step10-fft-tiled/tile.hpp"
#include "step10-fft-tiled/tuning.hpp"

namespace conv {
namespace embedded {
extern const char* const CLCONV_STEP_KERNEL;
}

namespace {

class ThisStep : public TiledFftStep {
 public:
  std::string name() const override { return CLCONV_STEP_NAME; }
  std::string summary() const override {
    return "overlap-save: each pair of N x N tiles transformed, multiplied and transformed back on chip";
  }
  std::string embedded_source() const override { return embedded::CLCONV_STEP_KERNEL; }
  bool exact_sums() const override { return false; }

  // The bound derived in docs/step10-fft-tiled.md: each output is off by at
  // most 4 log2(N^2) eps sum|K| max|x|, the largest tile that can run
  // (256) taken for N.
  Comparison compare(const Image& output, const Problem& problem,
                     const Reference& reference) const override {
    return compare_with_absolute_tolerance(
        output, reference,
        tiled_fft_error_bound(problem.filter, problem.padded, kLargestTile));
  }

  Launch prepare(DeviceContext& device, const Problem& problem, const RunOptions& options) override {
    cl::CommandQueue& queue = device.queue();
    const Image& in = problem.padded;
    const int out_width = problem.out_width(), out_height = problem.out_height();
    const int F = problem.filter.width;
    const int items = options.wg_x * options.wg_y;

    // The tile and its layout: the options given, the tuned winner, or the
    // documented defaults (default_tile).
    std::string origin;
    const TunePoint point = resolve(device.facts(), options, problem.filter, items, &origin);
    const int N = std::stoi(point.at("tile"));
    const std::string layout = point.at("layout");
    const int valid = N - F + 1;
    const int tiles_x = (out_width + valid - 1) / valid, tiles_y = (out_height + valid - 1) / valid;
    const int pairs_x = (tiles_x + 1) / 2;
    const std::size_t pairs = static_cast<std::size_t>(pairs_x) * tiles_y;

    // 1. Buffers: the padded image goes in, the output comes out.
    Launch launch(device);
    cl::Buffer input =
        launch.buffer(CL_MEM_READ_ONLY, in.pixels.size() * sizeof(float), "the padded input", in.width);
    cl::copy(queue, in.pixels.cbegin(), in.pixels.cend(), input);
    cl::Buffer output = launch.output_buffer(
        CL_MEM_WRITE_ONLY, sizeof(float) * out_width * out_height, "the output", out_width);

    // 2. The kernel and its arguments: convolve (below), or a candidate
    //    layout's (the candidates' launch.cpp).
    cl::Kernel kernel = layout == "local"
                            ? convolve_kernel(device, launch, problem, options, input, output, N, items, pairs_x)
                            : candidate_kernel(device, launch, layout, problem, input, output, N, items, pairs_x);
    // The tile (tile_local_bytes) is the kernel's own __local array:
    // check_work_group names the local memory it needs against the device's.
    check_work_group(device, kernel, items, 1);

    // 3. The ranges: one work-group of `items` work-items per pair of tiles.
    const cl::NDRange local(items);
    const cl::NDRange global(pairs * items);
    launch.run = [=, &queue]() mutable {
      cl::Event event;
      queue.enqueueNDRangeKernel(kernel, cl::NullRange, global, local, nullptr, &event);
      return event;
    };
    // 4. Read: the output buffer back into an image.
    launch.read = [=, &queue] {
      Image result(out_width, out_height);
      cl::copy(queue, output, result.pixels.begin(), result.pixels.end());
      return result;
    };
    launch.work_group = shape_text(local);
    std::ostringstream note;
    note << "tile " << N << "x" << N << " (" << valid << "x" << valid << " outputs each), " << layout << " layout, "
         << pairs << " pairs of tiles; " << origin;
    launch.note = note.str();
    return launch;
  }

 private:
  // The lesson's kernel: the filter's spectrum and the twiddles for tile
  // N, and the program built for it.
  cl::Kernel convolve_kernel(DeviceContext& device, Launch& launch, const Problem& problem,
                             const RunOptions& options, const cl::Buffer& input, const cl::Buffer& output, int N,
                             int items, int pairs_x) const {
    cl::CommandQueue& queue = device.queue();
    const std::vector<float> spectrum = filter_spectrum(problem.filter, N);
    cl::Buffer spectrum_buffer = launch.buffer(CL_MEM_READ_ONLY, spectrum.size() * sizeof(float),
                                               "the filter's spectrum", 2 * N);
    cl::copy(queue, spectrum.cbegin(), spectrum.cend(), spectrum_buffer);
    const std::vector<float> w = twiddles(N);
    cl::Buffer twiddle_buffer = launch.buffer(CL_MEM_READ_ONLY, w.size() * sizeof(float), "the twiddles");
    cl::copy(queue, w.cbegin(), w.cend(), twiddle_buffer);

    // The program, for this N and the work-group's size (ITEMS: the
    // kernel's loops over its butterflies then have a constant count).
    int log2_n = 0;
    while ((1 << log2_n) < N) ++log2_n;
    const std::string build = "-D TILE=" + std::to_string(N) + " -D LOG2_TILE=" + std::to_string(log2_n) +
                              " -D ITEMS=" + std::to_string(items);
    cl::Program program = device.program(source(options), build, label(options));
    cl::Kernel kernel = make_kernel(program, "convolve", label(options));
    int arg = 0;
    kernel.setArg(arg++, input);
    kernel.setArg(arg++, problem.padded.width);
    kernel.setArg(arg++, problem.padded.height);
    kernel.setArg(arg++, output);
    kernel.setArg(arg++, problem.out_width());
    kernel.setArg(arg++, problem.out_height());
    kernel.setArg(arg++, spectrum_buffer);
    kernel.setArg(arg++, twiddle_buffer);
    kernel.setArg(arg++, N - problem.filter.width + 1);  // V
    kernel.setArg(arg++, pairs_x);
    return kernel;
  }
};

}  // namespace

std::unique_ptr<Step> make_step10_fft_tiled() { return std::make_unique<ThisStep>(); }

}  // namespace conv
