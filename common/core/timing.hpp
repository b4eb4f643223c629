// Kernel timing from OpenCL profiling events, and the statistics we report.
#pragma once
#include <functional>
#include <vector>

#include "common/core/cl.hpp"

namespace conv {

struct Stats {
  double min_ms = 0, median_ms = 0, mean_ms = 0;
  int reps = 0;
};

Stats summarize(std::vector<double> samples_ms);

// Milliseconds between CL_PROFILING_COMMAND_START and _END of a finished event.
double event_ms(const cl::Event& event);
// From the start of `first` to the end of `last` (several kernels in order), in ms.
double span_ms(const cl::Event& first, const cl::Event& last);

// Runs `launch` (which enqueues and returns its last event) `warmup` times
// untimed, then `reps` times, each waited for and `measure`d (event_ms unless
// the launch is several kernels).
Stats time_launches(const std::function<cl::Event()>& launch, int warmup, int reps,
                    const std::function<double(const cl::Event&)>& measure = event_ms);

// Wall-clock times of `reps` runs of a host function (the serial baseline).
Stats time_host(const std::function<void()>& work, int reps);

}  // namespace conv
