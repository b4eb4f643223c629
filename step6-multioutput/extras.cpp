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

}  // namespace

RunOptions bank_options(int bank, std::pair<int, int> block, int wg_x, int wg_y) {
  check_bank(bank);
  const auto [bx, by] = block.first > 0 ? block : default_bank_block(bank);
  RunOptions options;
  options.values = {{"bank", std::to_string(bank)},
                    {"block", std::to_string(bx) + "x" + std::to_string(by)},
                    {"weights", "constant"},
                    {"shape", "rows"},
                    {"copy", "rows"}};
  options.wg_x = wg_x;
  options.wg_y = wg_y;
  return options;
}

std::vector<Image> split_planes(const Image& stacked, int planes) {
  if (planes < 1 || stacked.height % planes != 0)
    throw Error("an image of " + std::to_string(stacked.height) + " rows does not hold " +
                std::to_string(planes) + " planes");
  std::vector<Image> out;
  const int height = stacked.height / planes;
  for (int k = 0; k < planes; ++k) {
    Image plane(stacked.width, height);
    const auto first = stacked.pixels.begin() + static_cast<std::ptrdiff_t>(k) * plane.pixels.size();
    std::copy(first, first + static_cast<std::ptrdiff_t>(plane.pixels.size()), plane.pixels.begin());
    out.push_back(std::move(plane));
  }
  return out;
}

Stats time_separate_passes(DeviceContext& device, const Problem& problem, int bank, std::pair<int, int> block,
                           int wg_x, int wg_y, int reps) {
  auto step = make_step6_multioutput();
  const RunOptions one = bank_options(1, block, wg_x, wg_y);
  Problem pass = problem;
  Stats total;
  for (const Filter& filter : step6_bank_filters(problem.filter, bank)) {
    pass.filter = filter;
    // No warm-up beyond the checked first run: every pass builds the same
    // program (the weights are an argument), and the first built it.
    const Stats s = run_step(*step, device, pass, one, reps, 0).stats;
    total.median_ms += s.median_ms;
    total.min_ms += s.min_ms;
    total.mean_ms += s.mean_ms;
    total.reps = s.reps;
  }
  return total;
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
