// One variant's buffers and kernels on one device, ready to run many times:
// the histogram's launcher. run_variant (histogram/run.cpp) runs it through
// run_launch; --breakdown times its pieces one by one.
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "common/machinery/device_choice.hpp"
#include "common/machinery/filter_specs.hpp"
#include "common/machinery/guard.hpp"
#include "common/machinery/image_files.hpp"
#include "common/machinery/program_cache.hpp"
#include "histogram/counts.hpp"
#include "histogram/rgb_image.hpp"
#include "histogram/variants.hpp"

namespace conv::histogram {

class DeviceHistogram {
 public:
  // Creates the buffers (the image, the partials, the result) with
  // clCreateBuffer alone: what --breakdown times.
  DeviceHistogram(const cl::Context& context, const Plan& plan);
  // The same buffers made through `launch` (Launch::buffer and
  // output_buffer): guard margins around each, checked by run_launch, which
  // also poisons the partials and the counts before the first run.
  DeviceHistogram(Launch& launch, const cl::Context& context, const Plan& plan);
  ~DeviceHistogram();
  DeviceHistogram(const DeviceHistogram&) = delete;
  DeviceHistogram& operator=(const DeviceHistogram&) = delete;

  void upload(cl::CommandQueue& queue, const RgbImage& image);  // blocking
  // Creates the kernels and sets their arguments; throws Error when the
  // work-group is over what this kernel may use on this device.
  void set_program(const cl::Program& program, const cl::Device& device);
  // Fills every output buffer with the harness's poison (kPoisonBits,
  // common/machinery/guard.hpp: as a count, 2143346349), so a bin or a partial that a
  // kernel forgets to write cannot pass as a count; then clear_sums().
  // run_launch does the same through the Launch.
  void poison(cl::CommandQueue& queue);
  // one-launch's precondition, set once: zero running sums (every launch
  // leaves them zero). Nothing for the other variants.
  void clear_sums(cl::CommandQueue& queue);
  // Poisons the 768 counts alone (3 KiB), before each timed run: a kernel
  // that stops writing them after the first run cannot pass on stale counts.
  void poison_result(cl::CommandQueue& queue);
  // Enqueues one histogram (fills and kernels, in order); returns their events.
  std::vector<cl::Event> enqueue(cl::CommandQueue& queue);
  // Reads back the partials (host merge) or the 768 counts (copied, or
  // mapped, copied out and unmapped); blocking.
  void read_back(cl::CommandQueue& queue);
  // The whole call in one go: enqueue(), the read-back (or map) enqueued
  // right behind the kernels without blocking, one wait for both (the
  // driver's, or the event's status asked until it is complete), then
  // finish().
  Counts call(cl::CommandQueue& queue);
  bool merges_on_host() const { return plan_.variant->merge == Merge::host; }
  // The host merge where there is one, else the counts read back.
  Counts finish() const;

  const Plan& plan() const { return plan_; }

 private:
  // Makes the buffers through `make` (flags, bytes, what, whether the
  // kernels write their result to it).
  using MakeBuffer = std::function<cl::Buffer(cl_mem_flags, std::size_t, const std::string&, bool)>;
  void make_buffers(const cl::Context& context, const MakeBuffer& make);
  void enqueue_read(cl::CommandQueue& queue, bool blocking, cl::Event* done);
  void release_map(cl::CommandQueue& queue);  // copies the mapped counts out, unmaps

  Plan plan_;
  cl::Buffer image_, partials_, slices_, result_;
  cl::Buffer sums_;    // one-launch: running sums and groups done, zero between launches
  cl::Buffer pinned_;  // one-launch: page-locked host memory the counts are read into
  cl::CommandQueue pinned_queue_;
  std::uint32_t* pinned_counts_ = nullptr;  // pinned_, mapped for the object's lifetime
  cl::Kernel count_, merge_partials_, merge_slices_;
  const std::uint32_t* mapped_ = nullptr;  // the counts, while mapped (ReadBack::map)
  std::vector<std::uint32_t> host_;  // what read_back() brought
};

}  // namespace conv::histogram
