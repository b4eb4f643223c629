#include "common/step.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "common/errors.hpp"
#include "common/program.hpp"

namespace conv {

Problem make_problem(const Image& image, const Filter& filter, Border border) {
  return Problem{pad_image(image, filter.width, border), filter, border};
}

Row problem_row(const DeviceFacts& facts, const std::string& step, const std::string& variant,
                const Problem& problem) {
  Row row;
  stamp(row, facts);
  row.step = step;
  row.variant = variant;
  row.width = problem.out_width();
  row.height = problem.out_height();
  row.filter = problem.filter.name;
  row.filter_width = problem.filter.width;
  row.border = border_name(problem.border);
  return row;
}

Comparison Step::compare(const Image& output, const Problem& problem,
                         const Reference& reference) const {
  return compare_with_reference(output, reference, problem.filter.width);
}

std::string Step::source(const RunOptions& options) const {
  return options.kernel_source.empty() ? embedded_source() : options.kernel_source;
}

std::string Step::label(const RunOptions& options) const {
  return options.kernel_label.empty() ? name() : options.kernel_label;
}

std::string Step::variant(const RunOptions& options) const {
  auto all = variants();
  if (options.variant.empty()) return all.front();
  for (const auto& v : all)
    if (v == options.variant) return v;
  std::string list;
  for (const auto& v : all) list += (list.empty() ? "" : ", ") + v;
  throw UsageError("--variant: " + name() + " has no variant '" + options.variant +
                   "' (it has: " + list + ")");
}

std::string Step::setting(const RunOptions& options, const std::string& name) const {
  for (const auto& s : settings()) {
    if (s.name != name) continue;
    auto it = options.settings.find(name);
    if (it == options.settings.end() || it->second.empty()) return s.default_value;
    if (s.choices.empty()) return it->second;
    for (const auto& c : s.choices)
      if (c == it->second) return c;
    std::string list;
    for (const auto& c : s.choices) list += (list.empty() ? "" : ", ") + c;
    throw UsageError("--" + name + " must be one of " + list + ", not '" + it->second + "'");
  }
  throw UsageError(this->name() + " has no setting '" + name + "'");
}

std::string Step::describe(const RunOptions& options) const {
  std::string text = variant(options);
  for (const auto& s : settings()) {
    const std::string value = setting(options, s.name);
    if (value != s.default_value) text += " " + s.name + "=" + value;
  }
  for (const auto& [key, value] : options.settings) {
    bool known = false;
    for (const auto& s : settings()) known |= s.name == key;
    if (!known) throw UsageError(name() + " has no setting '" + key + "'");
  }
  return text;
}

void check_buffer_size(DeviceContext& device, std::size_t bytes, const std::string& what) {
  const auto& f = device.facts();
  if (bytes > f.max_alloc_bytes)
    throw Error(what + " needs a buffer of " + std::to_string(bytes) + " bytes, over " + f.name +
                "'s limit of " + std::to_string(f.max_alloc_bytes) +
                " bytes (CL_DEVICE_MAX_MEM_ALLOC_SIZE)");
}

void check_private_memory(DeviceContext& device, const cl::Kernel& kernel, std::size_t items,
                          const std::string& what, std::size_t estimate) {
  constexpr std::size_t kCpuPrivateBytesPerGroup = std::size_t{4} << 20;
  if (device.facts().is_gpu) return;
  const std::size_t per_item = std::max<std::size_t>(
      estimate, kernel.getWorkGroupInfo<CL_KERNEL_PRIVATE_MEM_SIZE>(device.device()));
  if (per_item * items > kCpuPrivateBytesPerGroup)
    throw Error(what + ": " + std::to_string(items) + " work-items x " + std::to_string(per_item) +
                " bytes of private memory = " +
                std::to_string(per_item * items) + " bytes, over the " +
                std::to_string(kCpuPrivateBytesPerGroup) + " a CPU device (" + device.facts().name +
                ") can keep on one thread's stack: use a smaller work-group or block");
}

void check_constant_filter(DeviceContext& device, const Filter& filter) {
  const std::size_t bytes = filter.weights.size() * sizeof(float);
  const std::size_t limit = device.facts().constant_mem_bytes;
  if (bytes > limit)
    throw Error("the " + std::to_string(filter.width) + "x" + std::to_string(filter.width) +
                " filter needs " + std::to_string(bytes) + " bytes of constant memory, over " +
                device.facts().name + "'s limit of " + std::to_string(limit) +
                " bytes (CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE)");
}

void check_local_memory(DeviceContext& device, const cl::Kernel& kernel, std::size_t bytes,
                        const std::string& what) {
  const std::size_t limit = device.facts().local_mem_bytes;
  const std::size_t used = kernel.getWorkGroupInfo<CL_KERNEL_LOCAL_MEM_SIZE>(device.device());
  if (used + bytes > limit)
    throw Error(what + " needs " + std::to_string(bytes) + " bytes of local memory" +
                (used ? " (plus " + std::to_string(used) + " the kernel uses already)" : "") +
                ", over " + device.facts().name + "'s limit of " + std::to_string(limit) +
                " bytes (CL_DEVICE_LOCAL_MEM_SIZE)");
}

cl::Kernel make_kernel(const cl::Program& program, const std::string& name,
                       const std::string& label) {
  try {
    return cl::Kernel(program, name.c_str());
  } catch (const cl::Error& e) {
    throw Error(label + ": no kernel named '" + name + "' (" + cl_error_name(e.err()) + ")");
  }
}

void check_work_group_shape(DeviceContext& device, int wg_x, int wg_y, int wg_z) {
  const auto& f = device.facts();
  const bool three_d = wg_z != 1;
  const std::string shape = std::to_string(wg_x) + "x" + std::to_string(wg_y) +
                            (three_d ? "x" + std::to_string(wg_z) : "");
  const std::size_t items = static_cast<std::size_t>(wg_x) * wg_y * wg_z;
  if (items > f.max_work_group)
    throw Error("work-group " + shape + " = " + std::to_string(items) + " work-items is over " +
                f.name + "'s limit of " + std::to_string(f.max_work_group) +
                " (CL_DEVICE_MAX_WORK_GROUP_SIZE)");
  const std::size_t dims = three_d ? 3 : 2;
  const int asked[3] = {wg_x, wg_y, wg_z};
  if (f.max_work_item_sizes.size() < dims) return;
  std::string limits;
  bool over = false;
  for (std::size_t d = 0; d < dims; ++d) {
    over = over || static_cast<std::size_t>(asked[d]) > f.max_work_item_sizes[d];
    limits += (d ? "x" : "") + std::to_string(f.max_work_item_sizes[d]);
  }
  if (over)
    throw Error("work-group " + shape + " is over " + f.name + "'s per-dimension limits " + limits +
                " (CL_DEVICE_MAX_WORK_ITEM_SIZES)");
}

void check_work_group(DeviceContext& device, const cl::Kernel& kernel, int wg_x, int wg_y) {
  check_work_group_shape(device, wg_x, wg_y);
  const auto& f = device.facts();
  const std::string shape = std::to_string(wg_x) + "x" + std::to_string(wg_y);
  const std::size_t items = static_cast<std::size_t>(wg_x) * wg_y;
  const std::size_t kernel_max =
      kernel.getWorkGroupInfo<CL_KERNEL_WORK_GROUP_SIZE>(device.device());
  if (items > kernel_max)
    throw Error("work-group " + shape + " = " + std::to_string(items) +
                " work-items is over this kernel's limit of " + std::to_string(kernel_max) +
                " on " + f.name + " (CL_KERNEL_WORK_GROUP_SIZE)");
}

BufferLaunch::BufferLaunch(DeviceContext& device, const Problem& problem, Layout requested)
    : layout(requested), out_width(problem.out_width()), out_height(problem.out_height()) {
  const auto& in = problem.padded;
  if (layout.in_pitch == 0) layout.in_pitch = static_cast<std::size_t>(in.width);
  if (layout.in_rows == 0) layout.in_rows = static_cast<std::size_t>(in.height);
  if (layout.out_pitch == 0) layout.out_pitch = static_cast<std::size_t>(out_width);
  if (layout.out_rows == 0) layout.out_rows = static_cast<std::size_t>(out_height);
  const std::size_t in_bytes = layout.in_pitch * layout.in_rows * sizeof(float);
  const std::size_t out_bytes = layout.out_pitch * layout.out_rows * sizeof(float);
  check_buffer_size(device, in_bytes, "the padded input image");
  check_buffer_size(device, out_bytes, "the output image");
  auto& queue = device.queue();
  guarded_input = GuardedBuffer(device, CL_MEM_READ_ONLY, in_bytes, "the padded input", layout.in_pitch,
                                kGuardBits + 1);
  input = guarded_input.buffer;
  const bool dense_in = layout.in_pitch == static_cast<std::size_t>(in.width) &&
                        layout.in_rows == static_cast<std::size_t>(in.height);
  if (dense_in) {
    queue.enqueueWriteBuffer(input, CL_TRUE, 0, in_bytes, in.pixels.data());
  } else {
    queue.enqueueFillBuffer(input, 0.0f, 0, in_bytes);
    const std::size_t row_bytes = static_cast<std::size_t>(in.width) * sizeof(float);
    queue.enqueueWriteBufferRect(input, CL_TRUE, {0, 0, 0}, {0, 0, 0},
                                 {row_bytes, static_cast<std::size_t>(in.height), 1},
                                 layout.in_pitch * sizeof(float), 0, row_bytes, 0, in.pixels.data());
  }
  const std::size_t filter_bytes = problem.filter.weights.size() * sizeof(float);
  guarded_filter = GuardedBuffer(device, CL_MEM_READ_ONLY, filter_bytes, "the filter", 0,
                                 kGuardBits + 2);
  filter = guarded_filter.buffer;
  queue.enqueueWriteBuffer(filter, CL_TRUE, 0, filter_bytes, problem.filter.weights.data());
  guarded_output = GuardedBuffer(device, CL_MEM_WRITE_ONLY, out_bytes, "the output", layout.out_pitch);
  output = guarded_output.buffer;
}

void BufferLaunch::set_standard_args(const Problem& problem) {
  kernel.setArg(0, input);
  kernel.setArg(1, filter);
  kernel.setArg(2, output);
  kernel.setArg(3, static_cast<int>(layout.in_pitch));
  kernel.setArg(4, problem.out_width());
  kernel.setArg(5, problem.out_height());
  kernel.setArg(6, problem.filter.width);
}

void BufferLaunch::set_ranges(DeviceContext& device, int wg_x, int wg_y, int items_x, int items_y) {
  check_work_group(device, kernel, wg_x, wg_y);
  check_private_memory(device, kernel, static_cast<std::size_t>(wg_x) * wg_y,
                       "work-group " + std::to_string(wg_x) + "x" + std::to_string(wg_y));
  if (items_x < 0) items_x = out_width;
  if (items_y < 0) items_y = out_height;
  global = cl::NDRange(round_up(static_cast<std::size_t>(items_x), static_cast<std::size_t>(wg_x)),
                       round_up(static_cast<std::size_t>(items_y), static_cast<std::size_t>(wg_y)));
  local = cl::NDRange(static_cast<std::size_t>(wg_x), static_cast<std::size_t>(wg_y));
}

cl::Event BufferLaunch::enqueue(cl::CommandQueue& queue) {
  cl::Event event;
  queue.enqueueNDRangeKernel(kernel, cl::NullRange, global, local, nullptr, &event);
  return event;
}

void BufferLaunch::poison_output(cl::CommandQueue& queue) {
  queue.enqueueFillBuffer(output, poison_value(), 0, layout.out_pitch * layout.out_rows * sizeof(float));
  queue.finish();
}

void BufferLaunch::check_guards(cl::CommandQueue& queue) {
  guarded_output.check(queue);
  guarded_input.check(queue);
  guarded_filter.check(queue);
}

Image BufferLaunch::read_output(cl::CommandQueue& queue) {
  Image out(out_width, out_height);
  const std::size_t row_bytes = static_cast<std::size_t>(out_width) * sizeof(float);
  if (layout.out_pitch == static_cast<std::size_t>(out_width))
    queue.enqueueReadBuffer(output, CL_TRUE, 0, out.pixels.size() * sizeof(float), out.pixels.data());
  else
    queue.enqueueReadBufferRect(output, CL_TRUE, {0, 0, 0}, {0, 0, 0},
                                {row_bytes, static_cast<std::size_t>(out_height), 1},
                                layout.out_pitch * sizeof(float), 0, row_bytes, 0, out.pixels.data());
  return out;
}

std::string BufferLaunch::work_group() const {
  return std::to_string(local[0]) + "x" + std::to_string(local[1]);
}

RunResult run_step(Step& step, DeviceContext& device, const Problem& problem,
                   const RunOptions& options, int reps, int warmup) {
  // Before prepare(): a step sizes its buffers by the work-group, so an
  // absurd one would otherwise surface as an absurd buffer.
  check_work_group_shape(device, options.wg_x, options.wg_y);
  auto launch = step.prepare(device, problem, options);
  auto& queue = device.queue();
  launch->poison_output(queue);
  launch->enqueue(queue).wait();
  launch->check_guards(queue);
  RunResult result;
  result.output = launch->read_output(queue);
  check_result(result.output);
  result.work_group = launch->work_group();
  result.note = launch->note();
  if (reps > 0) {
    result.stats = time_launches([&] { return launch->enqueue(queue); }, warmup, reps,
                                 [&](const cl::Event& last) { return launch->elapsed_ms(last); });
    launch->check_guards(queue);
  }
  return result;
}

}  // namespace conv
