// Step 10's launcher: overlap-save in one kernel. It takes the tile (N x N,
// a power of two) from the filter's width and the device's local memory,
// computes the filter's spectrum for that tile once on the host, and
// launches one work-group per pair of tiles (convolve.cl). The tile, its
// layout and the work-group are the step's tuning parameters, declared
// once below: the documented defaults, unless this device has a tuned
// winner (build/bin/step10-fft-tiled --tune) or the options say otherwise.
#include <algorithm>
#include <sstream>

#include "common/machinery/parse.hpp"
#include "common/machinery/reference.hpp"
#include "common/core/errors.hpp"
#include "common/core/step.hpp"
#include "common/machinery/tuning.hpp"
#include "step10-fft-tiled/tile.hpp"

namespace conv {
namespace embedded {
extern const char* const CLCONV_STEP_KERNEL;
}
// The candidate layouts' host code, the tuner's (launch.hpp and launch.cpp
// in the candidates folder): why a point cannot run in one, and its kernel.
std::string candidate_ruled_out(const std::string& layout, int N, long long items, std::uint64_t local_mem_bytes);
cl::Kernel candidate_kernel(DeviceContext& device, Launch& launch, const std::string& lesson_source,
                            const std::string& layout, const Problem& problem, const cl::Buffer& input,
                            const cl::Buffer& output, int N, int items, int pairs_x);

namespace {

class ThisStep : public Step, public Tunable {
 public:
  std::string name() const override { return CLCONV_STEP_NAME; }
  std::string summary() const override {
    return "overlap-save: each pair of N x N tiles transformed, multiplied and transformed back on chip";
  }
  std::vector<StepOption> options() const override {
    return tuned_options(tune_parameters(), "; auto: the tuned winner, else the default (docs/step10-fft-tiled.md)");
  }

  // ---- the search space, declared once ----
  std::string tune_name() const override { return CLCONV_STEP_NAME; }
  std::string tune_filters() const override { return "random:15,random:31,random:63"; }
  // The tile as free text, so that the suites run 32 and 64 beside the
  // defaults: 16 is narrower than some of their filters, and 128 and 256
  // take long on a CPU. Largest first: where the values given need another
  // tile than the defaults' (--layout registers), the largest that runs.
  std::vector<TuneParameter> tune_parameters() const override {
    const std::vector<std::string> tiles = {"256", "128", "64", "32", "16"};
    return {{"tile", "The transform's size N (tiles of N x N, N - F + 1 outputs a side): 16, 32, 64, 128 or 256",
             tiles, {"64", "128", "256"}, one_of(tiles), {"32", "64"}},
            {"layout",
             "local: the whole tile in local memory (convolve.cl); split: four N/2 x N/2 sub-tiles through local "
             "memory in turn, N >= 32 (a candidate: split.cl); registers: each line of the tile in one work-item's "
             "registers, N = 16 to 64 (a candidate: registers.cl)",
             {"local", "split", "registers"}, {"local", "registers"}}};
  }
  // One dimension: the kernels loop over their butterflies (or lines), so
  // any number of work-items works.
  std::vector<std::string> tune_work_groups(const DeviceFacts&, const TuneProblem&) const override {
    return {"32x1", "64x1", "128x1", "256x1", "512x1", "1024x1"};
  }
  // The documented defaults, one rule for every device
  // (docs/step10-fft-tiled.md, "Which tile"): the tile with the fewest
  // flops per output of those at least F wide that fit local memory
  // (tile.hpp), whole in the local layout, else split in four; 128
  // work-items, or one per butterfly of a split tile's last column pass
  // ((N/2)^2 / 8: its registers hold 32 points a butterfly).
  TunePoint tune_defaults(const DeviceFacts& facts, const TuneProblem& problem) const override {
    const DefaultTile d = default_tile(static_cast<int>(problem.size), facts.local_mem_bytes);
    const int N = d.tile ? d.tile : kLargestTile;  // none fits: tune_ruled_out says why
    long long items = d.split ? static_cast<long long>(N / 2) * (N / 2) / 8 : 128;
    if (facts.max_work_group > 0) items = std::min<long long>(items, static_cast<long long>(facts.max_work_group));
    return {{"tile", std::to_string(N)}, {"layout", d.split ? "split" : "local"}, {"wg", std::to_string(items) + "x1"}};
  }
  std::string tune_ruled_out(const DeviceFacts& facts, const TuneProblem& problem,
                             const TunePoint& point) const override {
    const int F = static_cast<int>(problem.size), N = std::stoi(point.at("tile"));
    const auto [wx, wy] = parse_size(point.at("wg"), "wg", 1 << 14);
    const long long items = static_cast<long long>(wx) * wy;
    if (N < F)
      return "a " + std::to_string(N) + "-point tile is narrower than the filter (" + std::to_string(F) +
             " wide): no output is out of the wrap's reach" +
             (F > kLargestTile ? "; no tile is that wide (step 9 transforms the whole image instead)" : "");
    if (facts.max_work_group > 0 && items > static_cast<long long>(facts.max_work_group))
      return "a work-group of " + std::to_string(items) + " work-items, over the device's " +
             std::to_string(facts.max_work_group);
    const std::string layout = point.at("layout");
    if (layout != "local") return candidate_ruled_out(layout, N, items, facts.local_mem_bytes);
    if (tile_local_bytes(N) > facts.local_mem_bytes)
      return "a " + std::to_string(N) + "-point tile takes " + std::to_string(tile_local_bytes(N) / 1024) +
             " KiB of local memory whole, over this device's " + std::to_string(facts.local_mem_bytes / 1024) +
             " KiB (the split layout takes " + std::to_string(tile_local_bytes(N / 2) / 1024) + ")";
    return "";
  }

  std::string embedded_source() const override { return embedded::CLCONV_STEP_KERNEL; }
  // A --kernel file replaces convolve, the tile in local memory (the
  // exercise); the candidate layouts build their own kernels.
  bool builds_kernel_file(const RunOptions& options) const override {
    const std::string layout = option(options, "layout");
    return layout == "auto" || layout == "local";
  }
  bool exact_sums() const override { return false; }
  std::pair<int, int> default_work_group(const DeviceFacts& facts, const Filter& filter,
                                         const RunOptions& options) const override {
    return parse_size(resolve(facts, options, filter, 0).point.at("wg"), "wg", 1 << 14);
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

    // The tile and its layout: the options given, the tuned winner, or the
    // documented defaults (tune_defaults).
    const Resolved resolved = resolve(device.facts(), options, problem.filter, items);
    if (!resolved.why.empty()) throw UsageError(resolved.why);
    const int N = std::stoi(resolved.point.at("tile"));
    const std::string layout = resolved.point.at("layout");
    const int valid = N - F + 1;
    const int tiles_x = (out_width + valid - 1) / valid, tiles_y = (out_height + valid - 1) / valid;
    const int pairs_x = (tiles_x + 1) / 2;
    const std::size_t pairs = static_cast<std::size_t>(pairs_x) * tiles_y;

    // 1. Buffers: the padded image and the output.
    Launch launch(device);
    cl::Buffer input = launch.buffer(CL_MEM_READ_ONLY, in.pixels.size() * sizeof(float), "the padded input",
                                     in.width);
    cl::copy(queue, in.pixels.cbegin(), in.pixels.cend(), input);
    cl::Buffer output = launch.output_buffer(CL_MEM_WRITE_ONLY, sizeof(float) * out_width * out_height,
                                             "the output", out_width);

    // 2. The kernel and its arguments: convolve (below), or a candidate
    //    layout's (the candidates' launch.cpp).
    cl::Kernel kernel =
        layout == "local"
            ? convolve_kernel(device, launch, problem, options, input, output, N, items, pairs_x)
            : candidate_kernel(device, launch, embedded_source(), layout, problem, input, output, N, items, pairs_x);
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
         << pairs << " pairs of tiles; " << resolved.origin;
    launch.note = note.str();
    return launch;
  }

 private:
  // The point this run uses (resolve_point: the options given, then the
  // stored winner, then the defaults). A --kernel file stands for convolve:
  // the local layout. `items`: the run's work-group, or 0 to find it.
  Resolved resolve(const DeviceFacts& facts, const RunOptions& options, const Filter& filter, int items) const {
    TunePoint given = given_values(*this, *this, options);
    if (!options.kernel_source.empty()) given["layout"] = "local";
    if (items > 0) given["wg"] = std::to_string(items) + "x1";
    return resolve_point(*this, facts, tune_problem(filter), given);
  }

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
