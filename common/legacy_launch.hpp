// TEMPORARY: the launch before the redesign. A launch, to the harness: the problem a step is given (a padded image and
// a filter) and the prepared kernel launch it returns; BufferLaunch is the
// common case of three buffers and one 2D range.
#pragma once
#include <cstddef>
#include <memory>
#include <string>

#include "common/launch.hpp"

#include "common/border.hpp"
#include "common/cl.hpp"
#include "common/device.hpp"
#include "common/filter.hpp"
#include "common/guard.hpp"
#include "common/image.hpp"
#include "common/timing.hpp"

namespace conv {

// A prepared launch: buffers uploaded, arguments set.
class LegacyLaunch {
 public:
  virtual ~LegacyLaunch() = default;
  virtual cl::Event enqueue(cl::CommandQueue& queue) = 0;
  // Fills the output with poison_value(), so a pixel the kernel forgets
  // cannot pass.
  virtual void poison_output(cl::CommandQueue& queue) = 0;
  // Throws KernelFault when a launch wrote outside its buffers (their guard
  // bands, GuardedBuffer). A launch without guards checks nothing.
  virtual void check_guards(cl::CommandQueue&) {}
  virtual Image read_output(cl::CommandQueue& queue) = 0;
  // The work-group shape actually used, as "16x16" (may differ from asked).
  virtual std::string work_group() const = 0;
  // The time one launch took, given the event enqueue() returned. A launch
  // of several kernels returns its last event and measures from its first.
  virtual double elapsed_ms(const cl::Event& last) const { return event_ms(last); }
  // One line on what this launch does beyond the direct sum (a filter's
  // rank, a transform size); empty for steps 1-6.
  virtual std::string note() const { return ""; }
};

// How the images lie in device memory. Zero means dense: the padded image's
// own width and height for the input, the output's for the output. A larger
// pitch (floats per row) aligns every row; more rows or a wider pitch also
// give a kernel room to read and write past the image without range checks.
struct Layout {
  std::size_t in_pitch = 0, in_rows = 0;
  std::size_t out_pitch = 0, out_rows = 0;
};

// The common case: a padded input buffer, a filter buffer and an output
// buffer, each with guard bands; one 2D kernel over the output, global size
// rounded up to the work-group. Dense buffers are copied whole; pitched ones
// are zero-filled and the image goes in and out with
// enqueueWriteBufferRect/ReadBufferRect.
class BufferLaunch : public LegacyLaunch {
 public:
  BufferLaunch(DeviceContext& device, const Problem& problem, Layout layout = {});
  cl::Event enqueue(cl::CommandQueue& queue) override;
  void poison_output(cl::CommandQueue& queue) override;
  void check_guards(cl::CommandQueue& queue) override;
  Image read_output(cl::CommandQueue& queue) override;
  std::string work_group() const override;

  // Sets the arguments every 2D step's kernel starts with: input, filter,
  // output, in_pitch, out_width, out_height, filter_width (0..6).
  void set_standard_args(const Problem& problem);

  // Checks the shape against the device and the kernel and sets the ranges:
  // one work-item per output pixel unless items_x/items_y say otherwise.
  void set_ranges(DeviceContext& device, int wg_x, int wg_y, int items_x = -1, int items_y = -1);

  cl::Buffer input, filter, output;  // what the kernel gets: the guarded buffers' insides
  GuardedBuffer guarded_input, guarded_filter, guarded_output;
  Layout layout;  // with the zeros replaced by the dense sizes
  cl::Kernel kernel;
  cl::NDRange global, local;
  int out_width = 0, out_height = 0;
};

// Wraps an old-style launch into a Launch (until every launcher spells out
// its host code).
Launch adopt(DeviceContext& device, std::unique_ptr<LegacyLaunch> legacy);

}  // namespace conv
