// What a convolution step is, to the harness: a name, a kernel source, and a
// launcher that turns a problem into a ready-to-run kernel launch.
#pragma once
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "common/border.hpp"
#include "common/device.hpp"
#include "common/filter.hpp"
#include "common/guard.hpp"
#include "common/image.hpp"
#include "common/reference.hpp"
#include "common/report.hpp"
#include "common/timing.hpp"

namespace conv {

// One convolution to compute: the input already padded by the filter's reach,
// so the output is (padded.width - F + 1) x (padded.height - F + 1).
struct Problem {
  Image padded;
  Filter filter;
  Border border = Border::zero;
  int out_width() const { return padded.width - filter.width + 1; }
  int out_height() const { return padded.height - filter.width + 1; }
};

Problem make_problem(const Image& image, const Filter& filter, Border border);

// A report row for one run on `problem`: device, driver and date stamped,
// step and variant, the output's size, the filter and the border. The
// caller fills in the timings.
Row problem_row(const DeviceFacts& facts, const std::string& step, const std::string& variant,
                const Problem& problem);

struct RunOptions {
  std::string variant;         // empty: the step's first (default) variant
  std::map<std::string, std::string> settings;  // a step's own options, by name
  int wg_x = 16, wg_y = 16;    // work-group shape
  std::string kernel_source;   // empty: the step's embedded kernel
  std::string kernel_label;    // names the source in build errors
};

// A prepared launch: buffers uploaded, arguments set.
class Launch {
 public:
  virtual ~Launch() = default;
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

// An option only one step has (step 5's --aligned, step 6's --block): the
// step executable offers it as --NAME, sweeps as --set NAME=V1,V2.
struct StepSetting {
  std::string name, help, default_value;
  std::vector<std::string> choices;  // empty: any text the step accepts
  std::vector<std::string> test_values;  // free-text settings: what the suite also runs
};

class Step {
 public:
  virtual ~Step() = default;
  virtual std::string name() const = 0;     // "step1-naive": folder and executable
  virtual std::string summary() const = 0;  // one line for --help and the tour
  virtual std::vector<std::string> variants() const { return {"default"}; }
  virtual std::vector<StepSetting> settings() const { return {}; }
  virtual std::string embedded_source() const = 0;
  // The previous step's variant this step builds on, so that "x prev"
  // credits one idea; "" means the previous step's first variant.
  virtual std::string builds_on() const { return ""; }
  virtual std::unique_ptr<Launch> prepare(DeviceContext& device, const Problem& problem,
                                          const RunOptions& options) = 0;
  // The work-group shape `--wg auto` (the default) gives this step.
  virtual std::pair<int, int> default_work_group(const DeviceFacts&, int /*filter_width*/) const {
    return {16, 16};
  }
  // Checks `output` against the exact answer within this step's error bound:
  // the direct sum's (compare_with_reference) unless the step computes
  // another sum (a separable decomposition, a transform).
  virtual Comparison compare(const Image& output, const Problem& problem,
                             const Reference& reference) const;
  // True when every output is one plain sum of input x weight products, so
  // an impulse reproduces the filter bit for bit.
  virtual bool exact_sums() const { return true; }

  // The source to build: --kernel's file if given, else the embedded one.
  std::string source(const RunOptions& options) const;
  std::string label(const RunOptions& options) const;
  // The variant asked for, checked against variants(); "" -> the first one.
  std::string variant(const RunOptions& options) const;
  // A setting's value (checked against its choices), or its default.
  std::string setting(const RunOptions& options, const std::string& name) const;
  // "float4" or "float4 aligned=off": the variant plus every setting that is
  // not at its default, for reports.
  std::string describe(const RunOptions& options) const;
  // Throws UsageError for options this step cannot take (an unknown variant
  // or setting, a work-group shape it cannot use), before any work is done.
  virtual void check_options(const RunOptions& options) const { describe(options); }
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
class BufferLaunch : public Launch {
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

// Throws Error naming the limit when a work-group of wg_x x wg_y (x wg_z) is
// over the device's limits (total and per dimension), whatever the kernel.
void check_work_group_shape(DeviceContext& device, int wg_x, int wg_y, int wg_z = 1);

// As check_work_group_shape, and also against `kernel`'s own limit.
void check_work_group(DeviceContext& device, const cl::Kernel& kernel, int wg_x, int wg_y);

// Throws Error naming the limit when one buffer of `bytes` is more than the
// device allows (CL_DEVICE_MAX_MEM_ALLOC_SIZE).
void check_buffer_size(DeviceContext& device, std::size_t bytes, const std::string& what);

// Throws Error naming both numbers when `kernel`'s private memory for a
// work-group of `items` work-items is more than a CPU device keeps on one
// worker thread's stack (PoCL: 8 MiB; half of it is allowed). Past that the
// launch would crash the program, not fail. No check on a GPU. The bytes
// per work-item are the driver's CL_KERNEL_PRIVATE_MEM_SIZE or `estimate`,
// whichever is larger (PoCL 3.1 reports 1024 for every kernel).
void check_private_memory(DeviceContext& device, const cl::Kernel& kernel, std::size_t items,
                          const std::string& what, std::size_t estimate = 0);

// Throws Error naming both numbers when the filter does not fit in the
// device's constant memory (CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE).
void check_constant_filter(DeviceContext& device, const Filter& filter);

// Throws Error naming both numbers when `bytes` of __local memory, on top of
// what `kernel` already uses, exceed the device's local memory.
void check_local_memory(DeviceContext& device, const cl::Kernel& kernel, std::size_t bytes,
                        const std::string& what);

// The kernel called `name` in `program`; a clear Error when a --kernel file
// does not define it.
cl::Kernel make_kernel(const cl::Program& program, const std::string& name,
                       const std::string& label);

inline std::size_t round_up(std::size_t value, std::size_t multiple) {
  return (value + multiple - 1) / multiple * multiple;
}

struct RunResult {
  Image output;   // from the first launch, into a poisoned buffer; checked by check_result()
  Stats stats;    // of the timed launches
  std::string work_group;
  std::string note;  // Launch::note()
};

// Prepares, runs once into a poisoned output (that output is the result),
// then `warmup` more untimed launches and `reps` timed ones. Throws
// KernelFault when the result holds untouched or non-finite pixels, or a
// launch wrote outside its buffers (checked after the first launch and
// after the timed ones).
RunResult run_step(Step& step, DeviceContext& device, const Problem& problem,
                   const RunOptions& options, int reps, int warmup = 1);

}  // namespace conv
