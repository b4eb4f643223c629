// What the candidates' host code (launch.cpp) gives the search space
// (tuning.cpp) beside what step 8's launcher calls (../tuning.hpp).
#pragma once
#include <string>
#include <utility>

#include "common/machinery/tuning.hpp"
#include "step8-separable/decompose.hpp"

namespace conv {

// The candidates that run both passes in one kernel: fused, fused-direct,
// strip and box, as `point` says.
Launch launch_candidate(const Step& step, DeviceContext& device, const Problem& problem, const RunOptions& options,
                        const TunePoint& point, const SeparableFilter& terms);

// Why the one-kernel candidate `method` cannot run on this device (its
// local or constant memory over the device's, a work-group or a batch too
// small for the box kernel's strip), or "".
std::string candidate_ruled_out(const DeviceFacts& facts, const std::string& method, int F, int rank,
                                std::pair<int, int> block, std::pair<int, int> wg, int batch);

}  // namespace conv
