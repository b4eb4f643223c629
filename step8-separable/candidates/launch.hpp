// The host code of step 8's candidate kernels (candidates/*.cl): what the
// tuner may pick beside the lesson's passes (docs/step8-separable.md,
// "Candidates, tuned as in step 7"). Each candidate's program is the
// lesson's convolve.cl followed by the candidate's file(s), whose kernels
// call the lesson's register-block functions.
#pragma once
#include <functional>
#include <string>
#include <utility>

#include "common/core/step.hpp"
#include "common/machinery/tuning.hpp"
#include "step8-separable/decompose.hpp"

namespace conv {

// One pass, enqueued with what changes from term to term: the term's filter
// and the accumulate flag (the column passes after the first add to the
// output).
using Pass = std::function<cl::Event(const cl::Buffer& filter, int accumulate)>;

// A pass without the tile (convolve_direct, candidates/direct.cl) from
// `from` into `to`, built with the lesson's pass's `build_options` (its
// window and block) and run over the same ranges.
Pass direct_pass(const Step& step, DeviceContext& device, const RunOptions& options, const std::string& build_options,
                 const cl::NDRange& global, const cl::NDRange& local, const cl::Buffer& from, int from_pitch,
                 const cl::Buffer& to, int to_pitch);

// The candidates that run both passes in one kernel: fused, fused-direct,
// strip and box, as `point` says; `note` begins the launch's note.
Launch launch_candidate(const Step& step, DeviceContext& device, const Problem& problem, const RunOptions& options,
                        const TunePoint& point, const SeparableFilter& terms, const std::string& note);

// Why the one-kernel candidate `kernel` cannot run on this device (its
// local or constant memory over the device's, a work-group too small for
// the box kernel's strip), or "".
std::string candidate_ruled_out(const DeviceFacts& facts, const std::string& kernel, int F, int rank,
                                std::pair<int, int> block, std::pair<int, int> wg);

}  // namespace conv
