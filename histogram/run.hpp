// Running one variant on one image: the first run into poisoned buffers is
// the result; then a warm-up and `reps` timed runs, each timed in its three
// parts (device work, read-back, host merge); then a warm-up and `reps` whole
// calls timed by the host's clock, from the first enqueue to the counts.
// Every run must count what the first counted (Error otherwise): a kernel
// that leaves state behind for the next run fails here.
#pragma once
#include <map>
#include <string>

#include "common/cl.hpp"
#include "common/timing.hpp"
#include "histogram/counts.hpp"
#include "histogram/program_cache.hpp"
#include "histogram/rgb_image.hpp"
#include "histogram/variants.hpp"

namespace conv::histogram {

// The three OpenCL objects a run needs (the queue must profile).
struct Cl {
  cl::Context context;
  cl::Device device;
  cl::CommandQueue queue;
};

// Programs for one context: built once per process (source and options),
// through the binary cache.
class Programs {
 public:
  Programs(Cl cl, ProgramCache cache) : cl_(std::move(cl)), cache_(std::move(cache)) {}
  cl::Program get(const Plan& plan);

 private:
  Cl cl_;
  ProgramCache cache_;
  std::map<std::string, cl::Program> built_;
};

struct VariantRun {
  Plan plan;
  Counts counts{};  // from the first run, into poisoned buffers
  Stats device;     // first fill or kernel start to last kernel end (profiling events)
  Stats read_back;  // wall clock, blocking read
  Stats merge;      // wall clock; zero where the device merges
  Stats total;      // the three added up, run by run
  Stats call;       // wall clock: enqueue, read-back enqueued behind it, one wait, merge
};

VariantRun run_variant(Cl& cl, Programs& programs, const DeviceFacts& facts, const RgbImage& image,
                       const Variant& variant, const Settings& settings, int reps, int warmup = 1);

// Milliseconds of the device's work behind these events, first start to last end.
double span_ms(const std::vector<cl::Event>& events);

}  // namespace conv::histogram
