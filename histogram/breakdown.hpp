// --breakdown: the cost of OpenCL, phase by phase, as the source post
// measured it, plus what it left out (cold vs warm build, the first launch,
// the read-back, the host merge). Every round starts from nothing: a fresh
// platform query, context, queue, program and buffers. A round's two
// launches are single measurements of a fresh start (the first waited for by
// the host's clock, the second timed by its profiling events), not a
// run-and-time loop, so they do not go through run_launch: its Launch needs
// a DeviceContext (which makes the context and the queue in one, where a
// round times each) and puts guard margins around the buffers (which would
// add to the phases "create buffers" and "upload image").
#pragma once
#include <string>
#include <vector>

#include "common/core/timing.hpp"
#include "common/machinery/device_choice.hpp"
#include "common/machinery/program_cache.hpp"
#include "histogram/counts.hpp"
#include "histogram/rgb_image.hpp"
#include "histogram/variants.hpp"

namespace conv::histogram {

struct Phase {
  std::string name;
  double first_ms = 0;  // the first round: the only one that loads the OpenCL driver
  Stats stats;          // over all rounds
};

struct Breakdown {
  Plan plan;
  std::vector<Phase> phases;  // in pipeline order, totals last
  Counts counts{};            // from the first round, into poisoned buffers
  std::string warm_note;      // why there is no warm build, if there is none
};

// `kernel_file` empty: the embedded kernel ("read source" is then a copy).
Breakdown breakdown(const DeviceChoice& choice, const RgbImage& image, const Variant& variant,
                    Settings settings, const std::string& kernel_file, const ProgramCache& cache,
                    int rounds);

}  // namespace conv::histogram
