#include "common/legacy_launch.hpp"

#include "common/device_checks.hpp"
#include "common/errors.hpp"
#include "common/program.hpp"

namespace conv {

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

Launch adopt(DeviceContext& device, std::unique_ptr<LegacyLaunch> legacy) {
  Launch launch(device);
  std::shared_ptr<LegacyLaunch> old(std::move(legacy));
  cl::CommandQueue* queue = &device.queue();
  launch.run = [old, queue] { return old->enqueue(*queue); };
  launch.read = [old, queue] { return old->read_output(*queue); };
  launch.elapsed = [old](const cl::Event& e) { return old->elapsed_ms(e); };
  launch.legacy_poison_ = [old, queue] { old->poison_output(*queue); };
  launch.legacy_check_ = [old, queue] { old->check_guards(*queue); };
  launch.work_group = old->work_group();
  launch.note = old->note();
  return launch;
}

}  // namespace conv
