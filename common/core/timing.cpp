#include "common/core/timing.hpp"

#include <algorithm>
#include <chrono>
#include <numeric>

namespace conv {

Stats summarize(std::vector<double> samples) {
  Stats s;
  s.reps = static_cast<int>(samples.size());
  if (samples.empty()) return s;
  std::sort(samples.begin(), samples.end());
  s.min_ms = samples.front();
  const std::size_t n = samples.size();
  s.median_ms = n % 2 ? samples[n / 2] : 0.5 * (samples[n / 2 - 1] + samples[n / 2]);
  s.mean_ms = std::accumulate(samples.begin(), samples.end(), 0.0) / static_cast<double>(n);
  return s;
}

double span_ms(const cl::Event& first, const cl::Event& last) {
  const cl_ulong start = first.getProfilingInfo<CL_PROFILING_COMMAND_START>();
  const cl_ulong end = last.getProfilingInfo<CL_PROFILING_COMMAND_END>();
  return static_cast<double>(end - start) * 1e-6;
}

double event_ms(const cl::Event& event) { return span_ms(event, event); }

Stats time_launches(const std::function<cl::Event()>& launch, int warmup, int reps,
                    const std::function<double(const cl::Event&)>& measure) {
  for (int i = 0; i < warmup; ++i) launch().wait();
  std::vector<double> samples;
  samples.reserve(static_cast<std::size_t>(reps));
  for (int i = 0; i < reps; ++i) {
    cl::Event e = launch();
    e.wait();
    samples.push_back(measure(e));
  }
  return summarize(samples);
}

Stats time_host(const std::function<void()>& work, int reps) {
  std::vector<double> samples;
  for (int i = 0; i < reps; ++i) {
    auto t0 = std::chrono::steady_clock::now();
    work();
    auto t1 = std::chrono::steady_clock::now();
    samples.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
  }
  return summarize(samples);
}

}  // namespace conv
