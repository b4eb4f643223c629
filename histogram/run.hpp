// Running one variant on one image. The runs go through run_launch
// (common/core/run_step.hpp), the loop every launch of the project uses: the
// first run into poisoned buffers is the result; then a warm-up and `reps`
// timed runs; guard margins checked after the first and after the last.
// Each run poisons the 768 counts, enqueues the kernels (timed by their
// profiling events), reads back and merges (each timed by the host's clock).
// Then a warm-up and `reps` whole calls, timed by the host's clock from the
// first enqueue to the counts. Every run and every call must count what the
// first run counted (KernelFault otherwise): a kernel that leaves state behind for
// the next run fails here.
#pragma once
#include "common/core/timing.hpp"
#include "common/machinery/device_choice.hpp"
#include "common/machinery/program_cache.hpp"
#include "histogram/counts.hpp"
#include "histogram/rgb_image.hpp"
#include "histogram/variants.hpp"

namespace conv::histogram {

struct VariantRun {
  Plan plan;
  Counts counts{};  // from the first run, into poisoned buffers
  Stats device;     // first fill or kernel start to last kernel end (profiling events)
  Stats read_back;  // wall clock, blocking read
  Stats merge;      // wall clock; zero where the device merges
  Stats total;      // the three added up, run by run
  Stats call;       // wall clock: enqueue, read-back enqueued behind it, one wait, merge
};

// Builds the variant's program with device.program() (through the binary
// cache where the caller turned it on: DeviceContext::use_binary_cache).
VariantRun run_variant(DeviceContext& device, const RgbImage& image, const Variant& variant,
                       const Settings& settings, int reps, int warmup = 1);

}  // namespace conv::histogram
