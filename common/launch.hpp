// What a step's launcher is given (a Problem) and hands back (a Launch: the
// functions run and read, and the buffers it made, whose margins the
// harness checks and whose outputs it poisons).
#pragma once
#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "common/border.hpp"
#include "common/cl.hpp"
#include "common/device.hpp"
#include "common/filter.hpp"
#include "common/guard.hpp"
#include "common/image.hpp"
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

// A prepared launch: the launcher makes its device buffers through buffer()
// and output_buffer(), sets `run` and `read`, and returns it; the harness
// runs it (run_launch, common/run_step.hpp).
class Launch {
 public:
  explicit Launch(DeviceContext& device) : device_(&device) {}

  // A device buffer of `bytes` for the kernel, checked against the device's
  // allocation limit. The harness puts guard margins around it and checks
  // them after the launches (GuardedBuffer, docs/reliability.md); `pitch`
  // (floats per row) lets that check name the (x, y) of a stray write.
  cl::Buffer buffer(cl_mem_flags flags, std::size_t bytes, const std::string& what,
                    std::size_t pitch = 0);
  // As buffer(), for a buffer the kernel writes its result to: the harness
  // fills it with poison_value() before the checked launch, so a pixel the
  // kernel forgets cannot pass.
  cl::Buffer output_buffer(cl_mem_flags flags, std::size_t bytes, const std::string& what,
                           std::size_t pitch = 0);

  // Enqueues the step's kernel(s) once; returns the last kernel's event.
  std::function<cl::Event()> run;
  // Reads the result back from the device (after run's event completed).
  std::function<Image()> read;
  // The time of one run, from run's event: event_ms for one kernel; a
  // launch of several kernels measures from its first (span_ms).
  std::function<double(const cl::Event&)> elapsed = event_ms;
  std::string work_group;  // the shape used, "16x16" (may differ from the one asked)
  std::string note;        // a line on what it does beyond the direct sum; may be empty

  // For the harness: fill every output buffer with the poison; throw
  // KernelFault when a margin was written.
  void poison_outputs();
  void check_guards();

 private:
  DeviceContext* device_;
  std::vector<GuardedBuffer> guarded_;
  std::vector<std::size_t> outputs_;  // indexes into guarded_
};

// The kernel called `name` in `program`; a clear Error when a --kernel file
// does not define it.
cl::Kernel make_kernel(const cl::Program& program, const std::string& name,
                       const std::string& label);

inline std::size_t round_up(std::size_t value, std::size_t multiple) {
  return (value + multiple - 1) / multiple * multiple;
}

// "16x16", from a local range.
std::string shape_text(const cl::NDRange& range);

}  // namespace conv
