// Step 10's launcher: overlap-save in one kernel. It picks the tile (N x N,
// a power of two, from the filter's width and the device's local memory),
// computes the filter's spectrum for that tile once on the host, and
// launches one work-group per pair of tiles (convolve.cl).
#include <algorithm>
#include <sstream>

#include "common/machinery/reference.hpp"
#include "common/core/errors.hpp"
#include "common/core/step.hpp"
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
    return "overlap-save: each pair of N x N tiles transformed, multiplied and transformed back on chip";
  }
  std::vector<StepOption> options() const override {
    // Free text, so that the suites run 32 and 64 explicitly: 16 is
    // narrower than some of their filters (auto picks it for the narrow
    // ones), and 128 and 256 take long on a CPU (auto picks them there for
    // the wider filters).
    return {{"tile",
             "The transform's size N: 16, 32, 64, 128 or 256 (tiles of N x N, N - F + 1 outputs a side); auto: "
             "the cheapest per output of those that fit the device's local memory",
             "auto",
             {},
             {"32", "64"},
             one_of({"auto", "16", "32", "64", "128", "256"})},
            {"layout",
             "local: the whole tile in local memory; split: four N/2 x N/2 sub-tiles through local memory in turn, "
             "the first stage in registers (N >= 32; its default work-group, N*N/32 work-items, keeps them there); "
             "registers: each column, then each row, of the tile whole in one work-item's registers (N = 32 or 64; "
             "its default work-group, N work-items, one line each); auto: the cheapest per output that fits "
             "(registers, local, split)",
             "auto",
             {},
             {"local", "split", "registers"},
             one_of({"auto", "local", "split", "registers"})}};
  }
  std::string embedded_source() const override { return embedded::CLCONV_STEP_KERNEL; }
  // A --kernel file replaces convolve, the tile in local memory (the
  // exercise); the split and registers layouts run the step's own
  // convolve_split and convolve_registers, and with a kernel file
  // `--layout auto` keeps to the local layout.
  bool builds_kernel_file(const RunOptions& options) const override {
    const std::string layout = option(options, "layout");
    return layout != "split" && layout != "registers";
  }
  bool exact_sums() const override { return false; }
  // The kernels loop over their butterflies, so any number of work-items
  // works, in one dimension; 128 was the fastest of 64 to 256 on the H100
  // (docs/step10-fft-tiled.md) and as fast as any on PoCL. The split
  // layout keeps 32 points in registers per butterfly of its last column
  // pass, so it gets one butterfly per work-item: (N/2)^2 / 8 (512 for
  // the 128-point tile, 1.5x faster than 256 on the H100). The registers
  // layout gets one work-item per line of the tile, N.
  std::pair<int, int> default_work_group(const DeviceFacts& facts, const Filter& filter,
                                         const RunOptions& options) const override {
    const int filter_width = filter.width;
    TileChoice choice;
    try {
      choice = tile_for(options, filter_width, facts.local_mem_bytes);
    } catch (const Error&) {
      return {128, 1};  // prepare() says what is wrong
    }
    if (choice.layout == TileLayout::local) return {128, 1};
    if (choice.layout == TileLayout::registers) return {choice.tile, 1};
    const int half = choice.tile / 2;
    return {static_cast<int>(std::min<std::size_t>(half * half / 8, facts.max_work_group)), 1};
  }

  // The tile and its layout: asked for with --tile and --layout, or the
  // cheapest that fits (tile.hpp).
  TileChoice tile_for(const RunOptions& options, int F, std::uint64_t local_mem) const {
    const std::string asked = option(options, "tile"), asked_layout = option(options, "layout");
    std::vector<TileLayout> layouts = {TileLayout::registers, TileLayout::local, TileLayout::split};
    if (asked_layout == "local") layouts = {TileLayout::local};
    if (asked_layout == "split") layouts = {TileLayout::split};
    if (asked_layout == "registers") layouts = {TileLayout::registers};
    if (asked_layout == "auto" && !options.kernel_source.empty()) layouts = {TileLayout::local};
    if (asked != "auto" && layouts.size() > 1) layouts = {auto_layout(std::stoi(asked), local_mem)};  // the cheapest
    if (asked == "auto") return choose_tile(F, local_mem, layouts);
    TileChoice choice;
    choice.tile = std::stoi(asked);
    choice.layout = layouts[0];
    if (choice.layout == TileLayout::split && choice.tile < kSmallestSplit)
      throw Error("--layout split: a " + asked + "-point tile is too small to split (it needs --tile " +
                  std::to_string(kSmallestSplit) + " or more)");
    if (choice.layout == TileLayout::registers && !tile_fits(choice.tile, choice.layout, local_mem))
      throw Error("--layout registers: a " + asked + "-point tile does not fit (it takes " +
                  std::to_string(kSmallestRegisterTile) + " to " + std::to_string(kLargestRegisterTile) + " points)");
    if (choice.tile < F)
      throw Error("--tile " + asked + ": a " + asked + "-point tile has no output the wrap cannot reach for a filter " +
                  std::to_string(F) + " wide (it needs N >= F)");
    return choice;
  }

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
    const int F = problem.filter.width;
    const int out_width = problem.out_width(), out_height = problem.out_height();
    const int items = options.wg_x * options.wg_y;

    // The tile and its layout.
    const std::string asked = option(options, "tile");
    const TileChoice choice = tile_for(options, F, device.facts().local_mem_bytes);
    const int N = choice.tile;
    const bool split = choice.layout == TileLayout::split;
    const bool registers = choice.layout == TileLayout::registers;
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
    std::vector<float> spectrum = filter_spectrum(problem.filter, N);
    if (registers) {  // [kx][ky]: consecutive work-items (rows ky) read consecutive points
      std::vector<float> by_column(spectrum.size());
      for (int ky = 0; ky < N; ++ky)
        for (int kx = 0; kx < N; ++kx)
          for (int part = 0; part < 2; ++part)
            by_column[2 * (static_cast<std::size_t>(kx) * N + ky) + part] =
                spectrum[2 * (static_cast<std::size_t>(ky) * N + kx) + part];
      spectrum.swap(by_column);
    }
    cl::Buffer spectrum_buffer = launch.buffer(CL_MEM_READ_ONLY, spectrum.size() * sizeof(float),
                                               "the filter's spectrum", 2 * N);
    cl::copy(queue, spectrum.cbegin(), spectrum.cend(), spectrum_buffer);
    // The split kernel's local memory holds a sub-tile (M = N/2 points a
    // side); its first stage needs the twiddles of the whole tile, M of them.
    const int M = split ? N / 2 : N;
    const std::vector<float> w = twiddles(M, registers ? N : 0);
    cl::Buffer twiddle_buffer = launch.buffer(CL_MEM_READ_ONLY, w.size() * sizeof(float), "the twiddles");
    cl::copy(queue, w.cbegin(), w.cend(), twiddle_buffer);
    cl::Buffer twiddle2_buffer;
    if (split) {
      const std::vector<float> w2 = twiddles(N, M);
      twiddle2_buffer = launch.buffer(CL_MEM_READ_ONLY, w2.size() * sizeof(float), "the first stage's twiddles");
      cl::copy(queue, w2.cbegin(), w2.cend(), twiddle2_buffer);
    }

    // 2. The program, for this M and the work-group's size (ITEMS: the
    //    kernels' loops over their butterflies then have a constant count,
    //    the split layout's work-items know how many butterflies of the
    //    last column pass they keep in registers, and the compiler can
    //    budget registers by the size). The registers layout's program is
    //    also built for V (VALID): one program per filter width.
    int log2_m = 0;
    while ((1 << log2_m) < M) ++log2_m;
    std::string build = "-D TILE=" + std::to_string(M) + " -D LOG2_TILE=" + std::to_string(log2_m) +
                        " -D ITEMS=" + std::to_string(items);
    if (split) build += " -D SPLIT";
    if (registers) build += " -D REGISTERS -D VALID=" + std::to_string(valid);
    cl::Program program = device.program(source(options), build, label(options));
    cl::Kernel kernel =
        make_kernel(program, split ? "convolve_split" : registers ? "convolve_registers" : "convolve", label(options));
    // The tile (tile_local_bytes) is the kernel's own __local array:
    // check_work_group names the local memory it needs against the device's.
    check_work_group(device, kernel, items, 1);

    // 3. The ranges: one work-group of `items` work-items per pair of tiles.
    const cl::NDRange local(items);
    const cl::NDRange global(pairs * items);
    int arg = 0;
    kernel.setArg(arg++, input);
    kernel.setArg(arg++, in.width);
    kernel.setArg(arg++, in.height);
    kernel.setArg(arg++, output);
    kernel.setArg(arg++, out_width);
    kernel.setArg(arg++, out_height);
    kernel.setArg(arg++, spectrum_buffer);
    kernel.setArg(arg++, twiddle_buffer);
    if (split) kernel.setArg(arg++, twiddle2_buffer);
    if (!registers) kernel.setArg(arg++, valid);  // convolve_registers has it as VALID
    kernel.setArg(arg++, pairs_x);
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
    note << "tile " << N << "x" << N << " (" << valid << "x" << valid << " outputs each, "
         << (asked == "auto" ? "auto" : "--tile") << "), " << layout_name(choice.layout) << " layout, " << pairs
         << " pairs of tiles";
    launch.note = note.str();
    return launch;
  }
};

}  // namespace

std::unique_ptr<Step> make_step10_fft_tiled() { return std::make_unique<ThisStep>(); }

}  // namespace conv
