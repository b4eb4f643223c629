// Step 10's launcher: overlap-save in one kernel. It picks the tile (N x N,
// a power of two, from the filter's width and the device's local memory),
// computes the filter's spectrum for that tile once on the host, and
// launches one work-group per pair of tiles (convolve.cl).
#include <sstream>

#include "common/errors.hpp"
#include "common/step.hpp"
#include "step10-fft-tiled/tile.hpp"

namespace conv {
namespace embedded {
extern const char* const CLCONV_STEP_KERNEL;
}

namespace {

class ThisStep : public Step {
 public:
  std::string name() const override { return CLCONV_STEP_NAME; }
  std::string summary() const override {
    return "overlap-save: each pair of N x N tiles transformed, multiplied and transformed back in local memory";
  }
  std::vector<StepOption> options() const override {
    // Free text, so that the suites run 16, 32 and 64 explicitly and not
    // 128, which no GPU's 48 KiB of local memory holds; `auto` picks 128 on
    // a CPU for the wider filters, so the suites run it there.
    return {{"tile",
             "The transform's size N: 16, 32, 64 or 128 (tiles of N x N, N - F + 1 outputs a side); auto: the "
             "cheapest per output of those that fit the device's local memory",
             "auto",
             {},
             {"16", "32", "64"},
             one_of({"auto", "16", "32", "64", "128"})}};
  }
  std::string embedded_source() const override { return embedded::CLCONV_STEP_KERNEL; }
  bool exact_sums() const override { return false; }
  // The kernel loops over its butterflies, so any number of work-items
  // works, in one dimension; 128 was the fastest of 64 to 512 on the H100
  // (docs/step10-fft-tiled.md) and as fast as any on PoCL.
  std::pair<int, int> default_work_group(const DeviceFacts&, int) const override { return {128, 1}; }

  // The bound derived in docs/step10-fft-tiled.md: each output is off by at
  // most 4 log2(N^2) eps sum|K| max|x|, the largest tile that can run
  // (128) taken for N.
  Comparison compare(const Image& output, const Problem& problem,
                     const Reference& reference) const override {
    return compare_with_absolute_tolerance(output, reference,
                                           tiled_fft_error_bound(problem.filter, problem.padded, 128));
  }

  Launch prepare(DeviceContext& device, const Problem& problem, const RunOptions& options) override {
    cl::CommandQueue& queue = device.queue();
    const Image& in = problem.padded;
    const int F = problem.filter.width;
    const int out_width = problem.out_width(), out_height = problem.out_height();
    const int items = options.wg_x * options.wg_y;

    // The tile: asked for, or the cheapest that fits (tile.hpp).
    const std::string asked = option(options, "tile");
    const int N = asked == "auto" ? choose_tile(F, device.facts().local_mem_bytes) : std::stoi(asked);
    if (N < F)
      throw Error("--tile " + asked + ": a " + std::to_string(N) + "-point tile has no output the wrap cannot reach for a filter " +
                  std::to_string(F) + " wide (it needs N >= F)");
    const int valid = N - F + 1;
    const int tiles_x = (out_width + valid - 1) / valid, tiles_y = (out_height + valid - 1) / valid;
    const int pairs_x = (tiles_x + 1) / 2;
    const std::size_t pairs = static_cast<std::size_t>(pairs_x) * tiles_y;

    // 1. Buffers: the padded image and the output, the filter's spectrum
    //    and the twiddles.
    Launch launch(device);
    cl::Buffer input = launch.buffer(CL_MEM_READ_ONLY, in.pixels.size() * sizeof(float), "the padded input",
                                     in.width);
    cl::copy(queue, in.pixels.cbegin(), in.pixels.cend(), input);
    cl::Buffer output = launch.output_buffer(CL_MEM_WRITE_ONLY, sizeof(float) * out_width * out_height,
                                             "the output", out_width);
    const std::vector<float> spectrum = filter_spectrum(problem.filter, N);
    cl::Buffer spectrum_buffer = launch.buffer(CL_MEM_READ_ONLY, spectrum.size() * sizeof(float),
                                               "the filter's spectrum", 2 * N);
    cl::copy(queue, spectrum.cbegin(), spectrum.cend(), spectrum_buffer);
    const std::vector<float> w = twiddles(N);
    cl::Buffer twiddle_buffer = launch.buffer(CL_MEM_READ_ONLY, w.size() * sizeof(float), "the twiddles");
    cl::copy(queue, w.cbegin(), w.cend(), twiddle_buffer);

    // 2. The program, for this N.
    int log2_n = 0;
    while ((1 << log2_n) < N) ++log2_n;
    cl::Program program = device.program(
        source(options), "-D TILE=" + std::to_string(N) + " -D LOG2_TILE=" + std::to_string(log2_n), label(options));
    cl::KernelFunctor<cl::Buffer, int, int, cl::Buffer, int, int, cl::Buffer, cl::Buffer, int, int> convolve(
        make_kernel(program, "convolve", label(options)));
    // The tile (tile_local_bytes) is the kernel's own __local array:
    // check_work_group names the local memory it needs against the device's.
    check_work_group(device, convolve.getKernel(), items, 1);

    // 3. The ranges: one work-group of `items` work-items per pair of tiles.
    const cl::NDRange local(items);
    const cl::NDRange global(pairs * items);
    launch.run = [=, &queue]() mutable {
      return convolve(cl::EnqueueArgs(queue, global, local), input, in.width, in.height, output, out_width,
                      out_height, spectrum_buffer, twiddle_buffer, valid, pairs_x);
    };
    // 4. Read: the output buffer back into an image.
    launch.read = [=, &queue] {
      Image result(out_width, out_height);
      cl::copy(queue, output, result.pixels.begin(), result.pixels.end());
      return result;
    };
    launch.work_group = shape_text(local);
    std::ostringstream note;
    note << "tile " << N << "x" << N << " (" << valid << "x" << valid << " outputs each, "
         << (asked == "auto" ? "auto" : "--tile") << "), " << pairs << " pairs of tiles";
    launch.note = note.str();
    return launch;
  }
};

}  // namespace

std::unique_ptr<Step> CLCONV_STEP_FACTORY() { return std::make_unique<ThisStep>(); }

}  // namespace conv
