// The filter bank of step 6 (extras.hpp).
#include "step6-multioutput/extras.hpp"

#include <algorithm>
#include <cmath>
#include <iostream>
#include <limits>
#include <random>

#include "common/errors.hpp"
#include "common/parse.hpp"
#include "common/step.hpp"
#include "step6-multioutput/tuning.hpp"

namespace conv {
namespace embedded {
extern const char* const step6_bank_kernel;
}  // namespace embedded

bool valid_bank_size(int bank) {
  return bank == 1 || bank == 2 || bank == 4 || bank == 8 || bank == 16;
}

std::vector<int> parse_bank_list(const std::string& text) {
  std::vector<int> banks;
  for (const auto& item : split_list(text)) {
    const int bank = parse_positive_int(item, "--bank", 16);
    if (!valid_bank_size(bank)) throw UsageError("--bank: 1, 2, 4, 8 or 16, not " + std::to_string(bank));
    banks.push_back(bank);
  }
  if (banks.empty()) throw UsageError("--bank: no bank size given");
  return banks;
}

void add_extras_options(CLI::App& app, ExtrasOptions& o, const std::string& verify_help) {
  app.add_option("--bank", o.banks, "Bank sizes to run, from 1, 2, 4, 8, 16")->capture_default_str();
  app.add_option("--reps", o.reps, "Timed launches (after one warm-up)")->capture_default_str()
      ->check(CLI::Range(1, 100000));
  app.add_flag("--verify", o.verify, verify_help);
  app.add_flag("--csv", o.csv, "Print CSV (one header row) instead of a table");
  app.add_flag("--no-limits", o.no_limits,
               "Do not measure the device's limits (the % of limit column stays empty); for simulators");
  add_device_options(app, o.device);
}

DeviceLimits extras_limits(DeviceContext& device, const ExtrasOptions& options,
                           const std::string& program) {
  if (options.no_limits) return {};
  if (!options.csv) std::cerr << program << ": measuring the device limits (cached after the first run)...\n";
  return device_limits(device);
}

namespace {

void check_bank(int bank) {
  if (!valid_bank_size(bank))
    throw UsageError("a filter bank holds 1, 2, 4, 8 or 16 filters (OpenCL's vector widths), not " +
                     std::to_string(bank));
}

// Weight i of every filter side by side: the layout of a floatBANK array.
std::vector<float> interleave(const std::vector<std::vector<float>>& weights) {
  const std::size_t bank = weights.size(), n = weights.front().size();
  std::vector<float> out(n * bank);
  for (std::size_t b = 0; b < bank; ++b)
    for (std::size_t i = 0; i < n; ++i) out[i * bank + b] = weights[b][i];
  return out;
}

void check_constant_bytes(DeviceContext& device, std::size_t bytes, const std::string& what) {
  const std::size_t limit = device.facts().constant_mem_bytes;
  if (bytes > limit)
    throw Error(what + " needs " + std::to_string(bytes) + " bytes of constant memory, over " +
                device.facts().name + "'s limit of " + std::to_string(limit) +
                " bytes (CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE)");
}

// bank.cl ready to launch: step 6's layout and tile, BANK values per pixel.
struct BankLaunch {
  std::unique_ptr<BufferLaunch> launch;
  std::size_t bank = 1;
};

BankLaunch prepare_bank(DeviceContext& device, const Image& padded, const std::vector<Filter>& filters,
                        int wg_x, int wg_y, std::pair<int, int> block) {
  const int bank = static_cast<int>(filters.size());
  check_bank(bank);
  const int F = filters.front().width;
  for (const auto& f : filters)
    if (f.width != F) throw UsageError("every filter of a bank must have the same width");
  auto [bx, by] = block.first > 0 ? block : default_bank_block(bank);
  if (bx % 4 != 0)
    throw UsageError("--block: the width must be a multiple of 4, not " + std::to_string(bx));
  const std::size_t weight_bytes = sizeof(float) * F * F * bank;
  check_constant_bytes(device, weight_bytes, "a bank of " + std::to_string(bank) + " filters of " +
                                                 std::to_string(F) + "x" + std::to_string(F));

  Problem problem;  // padded already; the launch wants one filter for its shapes
  problem.padded = padded;
  problem.filter = filters.front();
  const std::size_t group_w = static_cast<std::size_t>(wg_x) * bx;
  const std::size_t group_h = static_cast<std::size_t>(wg_y) * by;
  const std::size_t grid_w = round_up(problem.out_width(), group_w);
  const std::size_t grid_h = round_up(problem.out_height(), group_h);
  Layout layout;  // as step 6's launcher
  layout.in_pitch = round_up(grid_w + F + 2, 32);
  layout.in_rows = grid_h + F - 1;
  layout.out_pitch = grid_w;
  layout.out_rows = grid_h * bank;  // BANK floats per pixel: the buffer holds BANK planes' worth

  BankLaunch b;
  b.bank = static_cast<std::size_t>(bank);
  b.launch = std::make_unique<BufferLaunch>(device, problem, layout);
  auto& launch = *b.launch;
  std::vector<std::vector<float>> weights;
  for (const auto& f : filters) weights.push_back(f.weights);
  std::vector<float> packed = interleave(weights);
  launch.filter = cl::Buffer(device.context(), CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                             weight_bytes, packed.data());
  const std::string options = "-D FILTER_WIDTH=" + std::to_string(F) + " -D ALIGNED_PITCH" +
                              " -D BLOCK_X=" + std::to_string(bx) + " -D BLOCK_Y=" +
                              std::to_string(by) + " -D BANK=" + std::to_string(bank) +
                              (step6_unroll_rows_by_default(device.facts(), F) ? " -D UNROLL_ROWS" : "");
  cl::Program program = device.program(embedded::step6_bank_kernel, options, "step6-multioutput/bank.cl");
  launch.kernel = make_kernel(program, "convolve", "step6-multioutput/bank.cl");
  launch.set_standard_args(problem);
  launch.kernel.setArg(4, static_cast<int>(layout.out_pitch));
  launch.kernel.setArg(5, static_cast<int>(grid_h));
  const int tile_width = static_cast<int>(round_up(group_w + F - 1, 4));
  const int tile_height = static_cast<int>(group_h) + F - 1;
  const std::size_t tile_bytes = sizeof(float) * tile_width * tile_height;
  launch.set_ranges(device, wg_x, wg_y, static_cast<int>(grid_w / bx), static_cast<int>(grid_h / by));
  // The BLOCK_X x BLOCK_Y floatBANK sums and the tile row each work-item holds.
  const std::size_t sums_bytes = sizeof(float) * (static_cast<std::size_t>(bx) * by * bank + bx + F + 3);
  check_private_memory(device, launch.kernel, static_cast<std::size_t>(wg_x) * wg_y,
                       "a bank of " + std::to_string(bank) + " with block " + std::to_string(bx) + "x" +
                           std::to_string(by) + " and work-group " + launch.work_group(),
                       sums_bytes);
  check_local_memory(device, launch.kernel, tile_bytes,
                     "a " + std::to_string(tile_width) + "x" + std::to_string(tile_height) +
                         " tile (work-group " + launch.work_group() + ", block " +
                         std::to_string(bx) + "x" + std::to_string(by) + ", filter " +
                         std::to_string(F) + ")");
  launch.kernel.setArg(7, cl::Local(tile_bytes));
  launch.kernel.setArg(8, tile_width);
  launch.kernel.setArg(9, tile_height);
  return b;
}

}  // namespace

std::vector<Filter> random_filter_bank(int bank, int width, std::uint32_t seed) {
  check_bank(bank);
  std::vector<Filter> filters;
  for (int b = 0; b < bank; ++b)
    filters.push_back(parse_filter_spec("random:" + std::to_string(width) + ":" +
                                        std::to_string(seed + static_cast<std::uint32_t>(b))));
  return filters;
}

std::pair<int, int> default_bank_block(int bank) {
  check_bank(bank);
  if (bank <= 2) return {4, 4};
  if (bank == 4) return {4, 2};
  return {4, 1};
}

BankRun run_bank(DeviceContext& device, const Image& padded, const std::vector<Filter>& filters,
                 int wg_x, int wg_y, std::pair<int, int> block, int reps) {
  BankLaunch b = prepare_bank(device, padded, filters, wg_x, wg_y, block);
  auto& launch = *b.launch;
  auto& queue = device.queue();
  launch.poison_output(queue);
  launch.enqueue(queue).wait();
  launch.check_guards(queue);

  const std::size_t pitch = launch.layout.out_pitch, rows = launch.layout.out_rows / b.bank;
  std::vector<float> all(pitch * rows * b.bank);
  queue.enqueueReadBuffer(launch.output, CL_TRUE, 0, all.size() * sizeof(float), all.data());
  BankRun run;
  for (std::size_t k = 0; k < b.bank; ++k) {
    Image plane(launch.out_width, launch.out_height);
    for (int y = 0; y < plane.height; ++y)
      for (int x = 0; x < plane.width; ++x)
        plane.at(x, y) = all[(static_cast<std::size_t>(y) * pitch + x) * b.bank + k];
    check_result(plane, "output plane " + std::to_string(k));
    run.outputs.push_back(std::move(plane));
  }
  run.work_group = launch.work_group();
  if (reps > 0) {
    run.stats = time_launches([&] { return launch.enqueue(queue); }, 1, reps);
    launch.check_guards(queue);
  }
  return run;
}

Stats time_separate_passes(DeviceContext& device, const Image& padded,
                           const std::vector<Filter>& filters, int wg_x, int wg_y,
                           std::pair<int, int> block, int reps) {
  BankLaunch b = prepare_bank(device, padded, {filters.front()}, wg_x, wg_y, block);
  auto& launch = *b.launch;
  std::vector<cl::Buffer> weights;
  for (const auto& f : filters)
    weights.emplace_back(device.context(), CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                         f.weights.size() * sizeof(float), const_cast<float*>(f.weights.data()));
  auto& queue = device.queue();
  std::vector<double> samples;
  for (int rep = -1; rep < reps; ++rep) {  // rep -1 warms up
    std::vector<cl::Event> events;
    for (const auto& w : weights) {
      launch.kernel.setArg(1, w);  // arguments are captured at enqueue time
      events.push_back(launch.enqueue(queue));
    }
    events.back().wait();
    if (rep >= 0) samples.push_back(span_ms(events.front(), events.back()));
  }
  return summarize(samples);
}

}  // namespace conv
