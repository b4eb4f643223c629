#include "histogram/device_histogram.hpp"

#include "common/machinery/device_choice.hpp"
#include "common/machinery/guard.hpp"
#include "common/machinery/image_files.hpp"
#include "common/machinery/program_cache.hpp"

namespace conv::histogram {
namespace {

constexpr cl_uint kPoison = kPoisonBits;  // what Launch::poison_outputs fills outputs with
constexpr std::size_t kMergeGroup = 256;  // 768 = 3 x 256 bins per merge work-group

cl_uint as_uint(std::size_t v) { return static_cast<cl_uint>(v); }

}  // namespace

DeviceHistogram::DeviceHistogram(const cl::Context& context, const Plan& plan) : plan_(plan) {
  make_buffers(context, [&](cl_mem_flags flags, std::size_t bytes, const std::string&, bool) {
    return cl::Buffer(context, flags, bytes);
  });
}

DeviceHistogram::DeviceHistogram(Launch& launch, const cl::Context& context, const Plan& plan)
    : plan_(plan) {
  make_buffers(context, [&](cl_mem_flags flags, std::size_t bytes, const std::string& what,
                            bool output) {
    // Whole 32-bit words (the image's bytes need not be), since that is what
    // the guard margins are filled with; the kernels read `pixels` and no more.
    bytes = round_up(bytes, sizeof(cl_uint));
    return output ? launch.output_buffer(flags, bytes, what) : launch.buffer(flags, bytes, what);
  });
}

void DeviceHistogram::make_buffers(const cl::Context& context, const MakeBuffer& make) {
  image_ = make(CL_MEM_READ_ONLY, plan_.pixels * kChannels, "the image", false);
  if (plan_.map)  // in host memory, to be mapped; no guard margins (a sub-buffer cannot be)
    result_ = cl::Buffer(context, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, kCounts * sizeof(cl_uint));
  else
    result_ = make(CL_MEM_READ_WRITE, kCounts * sizeof(cl_uint), "the counts", true);
  if (plan_.variant->merge == Merge::last_group) {
    sums_ = make(CL_MEM_READ_WRITE, (kCounts + 1) * sizeof(cl_uint), "the running sums", false);
    // Host memory the counts are read into, not a kernel's buffer.
    if (!plan_.map) pinned_ = cl::Buffer(context, CL_MEM_ALLOC_HOST_PTR, kCounts * sizeof(cl_uint));
  }
  if (plan_.partial_bytes() > 0)
    partials_ = make(CL_MEM_READ_WRITE, plan_.partial_bytes(), "the partial histograms", true);
  if (plan_.variant->merge == Merge::device)
    slices_ = make(CL_MEM_READ_WRITE, plan_.slices * kCounts * sizeof(cl_uint),
                   "the merged slices", true);
}

DeviceHistogram::~DeviceHistogram() {
  if (!pinned_counts_) return;
  try {
    pinned_queue_.enqueueUnmapMemObject(pinned_, pinned_counts_);
    pinned_queue_.finish();
  } catch (...) {  // a destructor does not throw; the context's release frees it anyway
  }
}

void DeviceHistogram::upload(cl::CommandQueue& queue, const RgbImage& image) {
  queue.enqueueWriteBuffer(image_, CL_TRUE, 0, image.rgb.size(), image.rgb.data());
  if (pinned_() && !pinned_counts_) {  // made for a last-group variant whose counts are read
    // Mapped once and kept: a read into page-locked memory needs no staging copy.
    pinned_queue_ = queue;
    pinned_counts_ = static_cast<std::uint32_t*>(queue.enqueueMapBuffer(
        pinned_, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, kCounts * sizeof(cl_uint)));
  }
}

void DeviceHistogram::set_program(const cl::Program& program, const cl::Device& device) {
  count_ = make_kernel(program, "count", plan_.label);
  const std::size_t limit = count_.getWorkGroupInfo<CL_KERNEL_WORK_GROUP_SIZE>(device);
  if (plan_.wg > limit)
    throw Error("--wg " + std::to_string(plan_.wg) + " is over this kernel's work-group limit " +
                std::to_string(limit) + " on this device");
  count_.setArg(0, image_);
  count_.setArg(1, as_uint(plan_.pixels));
  count_.setArg(2, plan_.chunk);
  if (plan_.variant->merge == Merge::atomic) {
    count_.setArg(3, result_);
    return;
  }
  if (plan_.variant->merge == Merge::last_group) {
    count_.setArg(3, sums_);
    count_.setArg(4, result_);
    return;
  }
  count_.setArg(3, as_uint(plan_.items));
  count_.setArg(4, partials_);
  if (plan_.variant->merge != Merge::device) return;
  merge_partials_ = make_kernel(program, "merge", plan_.label);  // partials -> slices
  merge_partials_.setArg(0, partials_);
  merge_partials_.setArg(1, as_uint(plan_.items));
  merge_partials_.setArg(2, as_uint(plan_.slices));
  merge_partials_.setArg(3, slices_);
  merge_slices_ = make_kernel(program, "merge", plan_.label);  // slices -> the histogram
  merge_slices_.setArg(0, slices_);
  merge_slices_.setArg(1, as_uint(plan_.slices));
  merge_slices_.setArg(2, cl_uint{1});
  merge_slices_.setArg(3, result_);
}

void DeviceHistogram::poison(cl::CommandQueue& queue) {
  queue.enqueueFillBuffer(result_, kPoison, 0, kCounts * sizeof(cl_uint));
  if (plan_.partial_bytes() > 0)
    queue.enqueueFillBuffer(partials_, kPoison, 0, plan_.partial_bytes());
  if (plan_.variant->merge == Merge::device)
    queue.enqueueFillBuffer(slices_, kPoison, 0, plan_.slices * kCounts * sizeof(cl_uint));
  clear_sums(queue);
}

void DeviceHistogram::clear_sums(cl::CommandQueue& queue) {
  if (plan_.variant->merge == Merge::last_group)
    queue.enqueueFillBuffer(sums_, cl_uint{0}, 0, (kCounts + 1) * sizeof(cl_uint));
  queue.finish();
}

void DeviceHistogram::poison_result(cl::CommandQueue& queue) {
  queue.enqueueFillBuffer(result_, kPoison, 0, kCounts * sizeof(cl_uint));
  queue.finish();
}

std::vector<cl::Event> DeviceHistogram::enqueue(cl::CommandQueue& queue) {
  std::vector<cl::Event> events;
  auto add = [&]() -> cl::Event* { return &events.emplace_back(); };
  if (plan_.variant->merge == Merge::atomic)  // the kernels add into it
    queue.enqueueFillBuffer(result_, cl_uint{0}, 0, kCounts * sizeof(cl_uint), nullptr, add());
  queue.enqueueNDRangeKernel(count_, cl::NullRange, plan_.global, plan_.local, nullptr, add());
  if (plan_.variant->merge == Merge::device) {
    // Two launches: the queue runs them in order, and a kernel's writes are
    // visible to every work-item of the next. That is the device-wide sync a
    // barrier cannot give.
    queue.enqueueNDRangeKernel(merge_partials_, cl::NullRange, cl::NDRange(kCounts, plan_.slices),
                               cl::NDRange(kMergeGroup, 1), nullptr, add());
    queue.enqueueNDRangeKernel(merge_slices_, cl::NullRange, cl::NDRange(kCounts, 1),
                               cl::NDRange(kMergeGroup, 1), nullptr, add());
  }
  return events;
}

void DeviceHistogram::enqueue_read(cl::CommandQueue& queue, bool blocking, cl::Event* done) {
  const cl_bool block = blocking ? CL_TRUE : CL_FALSE;
  if (merges_on_host()) {
    host_.resize(plan_.items * kCounts);
    queue.enqueueReadBuffer(partials_, block, 0, plan_.partial_bytes(), host_.data(), nullptr, done);
  } else if (plan_.map) {
    mapped_ = static_cast<const std::uint32_t*>(queue.enqueueMapBuffer(
        result_, block, CL_MAP_READ, 0, kCounts * sizeof(cl_uint), nullptr, done));
  } else if (pinned_counts_) {
    queue.enqueueReadBuffer(result_, block, 0, kCounts * sizeof(cl_uint), pinned_counts_, nullptr,
                            done);
  } else {
    host_.resize(kCounts);
    queue.enqueueReadBuffer(result_, block, 0, kCounts * sizeof(cl_uint), host_.data(), nullptr,
                            done);
  }
}

void DeviceHistogram::release_map(cl::CommandQueue& queue) {
  if (!mapped_) return;
  // Copied out, then unmapped: the next kernel that writes the counts waits
  // for the unmap in the queue's order.
  host_.assign(mapped_, mapped_ + kCounts);
  queue.enqueueUnmapMemObject(result_, const_cast<std::uint32_t*>(mapped_));
  mapped_ = nullptr;
}

void DeviceHistogram::read_back(cl::CommandQueue& queue) {
  enqueue_read(queue, true, nullptr);
  release_map(queue);
}

Counts DeviceHistogram::call(cl::CommandQueue& queue) {
  enqueue(queue);
  cl::Event read;
  enqueue_read(queue, false, &read);  // the queue is in order: the read waits for the kernels
  if (plan_.spin) {
    queue.flush();  // submitted now, not when a wait would have submitted it
    cl_int status;
    while ((status = read.getInfo<CL_EVENT_COMMAND_EXECUTION_STATUS>()) > CL_COMPLETE) {
    }
    if (status < 0)
      throw Error("the read of the counts failed with status " + std::to_string(status));
  } else {
    read.wait();
  }
  release_map(queue);
  return finish();
}

Counts DeviceHistogram::finish() const {
  if (merges_on_host()) return merge_partials(host_, plan_.items);
  Counts counts{};
  if (pinned_counts_)
    std::copy(pinned_counts_, pinned_counts_ + kCounts, counts.begin());
  else
    std::copy(host_.begin(), host_.end(), counts.begin());
  return counts;
}

}  // namespace conv::histogram
