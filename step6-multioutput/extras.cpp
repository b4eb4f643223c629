// The filter bank and the 3D volume of step 6 (extras.hpp).
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
extern const char* const step6_volume_kernel;
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

// ---- the 3D volume ----------------------------------------------------------

Volume synthetic_volume(int width, int height, int depth, std::uint32_t seed) {
  if (width < 1 || height < 1 || depth < 1)
    throw UsageError("a volume needs positive sizes, not " + std::to_string(width) + "x" +
                     std::to_string(height) + "x" + std::to_string(depth));
  Volume v;
  v.width = width;
  v.height = height;
  v.depth = depth;
  v.voxels.resize(static_cast<std::size_t>(width) * height * depth);
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> noise(-24, 24);
  const double phase = 0.37 * seed;
  std::size_t i = 0;
  for (int z = 0; z < depth; ++z)
    for (int y = 0; y < height; ++y)
      for (int x = 0; x < width; ++x) {
        const double smooth = 100.0 * std::sin(0.11 * x + phase) * std::cos(0.07 * y) *
                              std::sin(0.05 * z + 1.0);
        const int value = 128 + static_cast<int>(smooth) + noise(rng);
        v.voxels[i++] = static_cast<std::uint8_t>(std::clamp(value, 0, 255));
      }
  return v;
}

std::vector<Filter3D> random_filter_bank_3d(int bank, int width, std::uint32_t seed) {
  check_bank(bank);
  if (width < 1 || width > 31) throw UsageError("a 3D filter width must be 1..31, not " + std::to_string(width));
  std::vector<Filter3D> filters;
  const double scale = 1.0 / (static_cast<double>(width) * width * width);
  for (int b = 0; b < bank; ++b) {
    std::mt19937 rng(seed + static_cast<std::uint32_t>(b));
    std::uniform_real_distribution<double> weight(-1.0, 1.0);
    Filter3D f;
    f.width = width;
    f.weights.resize(static_cast<std::size_t>(width) * width * width);
    for (auto& w : f.weights) w = static_cast<float>(weight(rng) * scale);
    filters.push_back(std::move(f));
  }
  return filters;
}

VolumeLayout check_volume_fits(DeviceContext& device, int width, int height, int depth, int F,
                               int bank, int step_x, int wg_x, int wg_y, int wg_z) {
  VolumeLayout l;
  l.out_width = width - F + 1;
  l.out_height = height - F + 1;
  l.out_depth = depth - F + 1;
  if (l.out_width < 1 || l.out_height < 1 || l.out_depth < 1)
    throw UsageError("the volume (" + std::to_string(width) + "x" + std::to_string(height) + "x" +
                     std::to_string(depth) + ") is smaller than the filter (" + std::to_string(F) +
                     " on a side)");
  check_work_group_shape(device, wg_x, wg_y, wg_z);
  // Whole blocks along x stay inside both buffers (volume.cl).
  l.step_x = step_x;
  l.out_pitch = round_up(l.out_width, step_x);
  l.in_pitch = l.out_pitch + F - 1;
  l.in_slice = l.in_pitch * height;
  l.out_slice = l.out_pitch * l.out_height;
  l.in_bytes = l.in_slice * depth;
  l.out_bytes = l.out_slice * l.out_depth * bank * sizeof(float);
  check_buffer_size(device, l.in_bytes, "the volume");
  check_buffer_size(device, l.out_bytes, "the output volumes");
  return l;
}

VolumeRun run_volume(DeviceContext& device, const Volume& volume,
                     const std::vector<Filter3D>& filters, const std::string& variant,
                     int block_x, int wg_x, int wg_y, int wg_z, int reps) {
  const int bank = static_cast<int>(filters.size());
  check_bank(bank);
  const bool blocked = variant == "blocked";
  if (!blocked && variant != "naive")
    throw UsageError("--variant: naive or blocked, not '" + variant + "'");
  if (block_x < 1 || block_x > 32) throw UsageError("--block-x: 1..32, not " + std::to_string(block_x));
  const int F = filters.front().width;
  for (const auto& f : filters)
    if (f.width != F) throw UsageError("every filter of a bank must have the same width");
  VolumeRun run;
  const VolumeLayout l = check_volume_fits(device, volume.width, volume.height, volume.depth, F, bank,
                                           blocked ? block_x : 1, wg_x, wg_y, wg_z);
  run.out_width = l.out_width;
  run.out_height = l.out_height;
  run.out_depth = l.out_depth;
  const int step_x = l.step_x;
  const std::size_t out_pitch = l.out_pitch, in_pitch = l.in_pitch, in_slice = l.in_slice,
                    out_slice = l.out_slice, in_bytes = l.in_bytes, out_bytes = l.out_bytes;
  const std::size_t weight_bytes = sizeof(float) * filters.front().weights.size() * bank;
  check_constant_bytes(device, weight_bytes, "a bank of " + std::to_string(bank) + " 3D filters of width " +
                                                 std::to_string(F));

  const auto& ctx = device.context();
  auto& queue = device.queue();
  cl::Buffer input(ctx, CL_MEM_READ_ONLY, in_bytes);
  queue.enqueueFillBuffer(input, std::uint8_t{0}, 0, in_bytes);
  queue.enqueueWriteBufferRect(input, CL_TRUE, {0, 0, 0}, {0, 0, 0},
                               {static_cast<std::size_t>(volume.width),
                                static_cast<std::size_t>(volume.height),
                                static_cast<std::size_t>(volume.depth)},
                               in_pitch, in_slice, static_cast<std::size_t>(volume.width),
                               static_cast<std::size_t>(volume.width) * volume.height,
                               volume.voxels.data());
  std::vector<std::vector<float>> weights;
  for (const auto& f : filters) weights.push_back(f.weights);
  std::vector<float> packed = interleave(weights);
  cl::Buffer filter(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, weight_bytes, packed.data());
  cl::Buffer output(ctx, CL_MEM_WRITE_ONLY, out_bytes);

  const std::string options = "-D FILTER_WIDTH=" + std::to_string(F) + " -D BANK=" +
                              std::to_string(bank) + " -D BLOCK_X=" + std::to_string(block_x);
  const std::string label = "step6-multioutput/volume.cl";
  cl::Program program = device.program(embedded::step6_volume_kernel, options, label);
  cl::Kernel kernel = make_kernel(program, blocked ? "volume_blocked" : "volume_naive", label);
  int arg = 0;
  for (const cl::Buffer* b : {&input, &filter, &output}) kernel.setArg(arg++, *b);
  for (std::size_t v : {in_pitch, in_slice, out_pitch, out_slice}) kernel.setArg(arg++, static_cast<int>(v));
  for (int v : {run.out_width, run.out_height, run.out_depth}) kernel.setArg(arg++, v);

  const std::size_t items = static_cast<std::size_t>(wg_x) * wg_y * wg_z;
  const std::size_t kernel_max = kernel.getWorkGroupInfo<CL_KERNEL_WORK_GROUP_SIZE>(device.device());
  if (items > kernel_max)
    throw Error("work-group of " + std::to_string(items) + " work-items is over this kernel's limit of " +
                std::to_string(kernel_max) + " on " + device.facts().name + " (CL_KERNEL_WORK_GROUP_SIZE)");
  const cl::NDRange global(round_up(out_pitch / step_x, wg_x), round_up(run.out_height, wg_y),
                           round_up(run.out_depth, wg_z));
  const cl::NDRange local(wg_x, wg_y, wg_z);
  run.work_group = std::to_string(wg_x) + "x" + std::to_string(wg_y) + "x" + std::to_string(wg_z);
  auto enqueue = [&] {
    cl::Event event;
    queue.enqueueNDRangeKernel(kernel, cl::NullRange, global, local, nullptr, &event);
    return event;
  };

  queue.enqueueFillBuffer(output, poison_value(), 0, out_bytes);
  enqueue().wait();
  std::vector<float> all(out_bytes / sizeof(float));
  queue.enqueueReadBuffer(output, CL_TRUE, 0, out_bytes, all.data());
  for (int k = 0; k < bank; ++k) {
    Image plane(run.out_width, run.out_height * run.out_depth);
    for (int z = 0; z < run.out_depth; ++z)
      for (int y = 0; y < run.out_height; ++y)
        for (int x = 0; x < run.out_width; ++x)
          plane.at(x, z * run.out_height + y) =
              all[(z * out_slice + y * out_pitch + x) * bank + k];
    check_result(plane, "output volume " + std::to_string(k));
    run.outputs.push_back(std::move(plane));
  }
  if (reps > 0) run.stats = time_launches(enqueue, 1, reps);
  return run;
}

Reference volume_reference(const Volume& volume, const Filter3D& filter) {
  const int F = filter.width;
  Reference ref;
  const int ow = volume.width - F + 1, oh = volume.height - F + 1, od = volume.depth - F + 1;
  ref.width = ow;
  ref.height = oh * od;
  ref.value.resize(static_cast<std::size_t>(ow) * oh * od);
  ref.magnitude.resize(ref.value.size());
  std::size_t i = 0;
  for (int z = 0; z < od; ++z)
    for (int y = 0; y < oh; ++y)
      for (int x = 0; x < ow; ++x, ++i) {
        double sum = 0, mag = 0;
        for (int dz = 0; dz < F; ++dz)
          for (int dy = 0; dy < F; ++dy)
            for (int dx = 0; dx < F; ++dx) {
              const double term = static_cast<double>(filter.at(dx, dy, dz)) * volume.at(x + dx, y + dy, z + dz);
              sum += term;
              mag += std::fabs(term);
            }
        ref.value[i] = sum;
        ref.magnitude[i] = mag;
      }
  return ref;
}

}  // namespace conv
