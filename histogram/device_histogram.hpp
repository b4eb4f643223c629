// One variant's buffers and kernels on one device, ready to run many times:
// the pieces that --breakdown times one by one.
#pragma once
#include <cstdint>
#include <vector>

#include "common/cl.hpp"
#include "histogram/counts.hpp"
#include "histogram/rgb_image.hpp"
#include "histogram/variants.hpp"

namespace conv::histogram {

class DeviceHistogram {
 public:
  // Creates the buffers (the image, the partials, the result).
  DeviceHistogram(const cl::Context& context, const Plan& plan);

  void upload(cl::CommandQueue& queue, const RgbImage& image);  // blocking
  // Creates the kernels and sets their arguments; throws Error when the
  // work-group is over what this kernel may use on this device.
  void set_program(const cl::Program& program, const cl::Device& device);
  // Fills every output buffer with 0xDEADBEEF, so a bin or a partial that a
  // kernel forgets to write cannot pass as a count.
  void poison(cl::CommandQueue& queue);
  // Enqueues one histogram (fills and kernels, in order); returns their events.
  std::vector<cl::Event> enqueue(cl::CommandQueue& queue);
  // Reads back the partials (host merge) or the 768 counts; blocking.
  void read_back(cl::CommandQueue& queue);
  bool merges_on_host() const { return plan_.variant->merge == Merge::host; }
  // The host merge where there is one, else the counts read back.
  Counts finish() const;

  const Plan& plan() const { return plan_; }

 private:
  Plan plan_;
  cl::Buffer image_, partials_, slices_, result_;
  cl::Kernel count_, merge_partials_, merge_slices_;
  std::vector<std::uint32_t> host_;  // what read_back() brought
};

}  // namespace conv::histogram
