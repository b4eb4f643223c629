// What a step's launcher hands back: a Launch (the guard bands behind its
// buffers: common/machinery/guard.hpp).
#pragma once
#include <cstddef>
#include <functional>
#include <memory>
#include <string>

#include "common/core/device.hpp"
#include "common/core/problem.hpp"
#include "common/core/timing.hpp"

namespace conv {

// A prepared launch: the launcher makes its device buffers through buffer()
// and output_buffer(), sets `run` and `read`, and returns it; the harness
// runs it (run_launch, common/core/run_step.hpp).
class Launch {
 public:
  explicit Launch(DeviceContext& device) : device_(&device) {}

  // A device buffer of `bytes`, checked against the device's allocation
  // limit, between guard margins the harness checks after the launches;
  // `pitch` (floats per row) lets that check name a stray write's (x, y).
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
  struct Guards;  // the buffers and their margins (machinery/guard.cpp)
  DeviceContext* device_;
  std::shared_ptr<Guards> guards_;
};

// The kernel `name` in `program`; Error when a --kernel file lacks it.
cl::Kernel make_kernel(const cl::Program& program, const std::string& name,
                       const std::string& label);

inline std::size_t round_up(std::size_t value, std::size_t multiple) {
  return (value + multiple - 1) / multiple * multiple;
}

// "16x16", from a local range.
std::string shape_text(const cl::NDRange& range);

}  // namespace conv
