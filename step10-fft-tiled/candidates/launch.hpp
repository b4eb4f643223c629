// Step 10's candidate layouts (docs/step10-fft-tiled.md, "Candidates"):
// kernels the tuner tries beside the lesson's convolve, where a device may
// run them faster. split (candidates/split.cl): four N/2 x N/2 sub-tiles
// through local memory in turn, the first stage in registers, for a tile
// that local memory cannot hold whole. registers (candidates/registers.cl):
// each line of the tile whole in one work-item's registers, local memory
// only for the two exchanges between the column and the row transforms.
#pragma once
#include <cstdint>
#include <string>

#include "common/core/launch.hpp"
#include "common/core/step.hpp"

namespace conv {

// Why tile N cannot run in the candidate `layout` with `items` work-items
// on a device with `local_mem_bytes` (its sizes, its local memory), or "".
std::string candidate_ruled_out(const std::string& layout, int N, long long items,
                                std::uint64_t local_mem_bytes);

// The candidate's kernel for tile N, built from the lesson's source and
// its own, with its buffers made in `launch` and every argument set:
// the input and output as convolve takes them, one work-group of `items`
// per pair of tiles, pairs_x pairs a row.
cl::Kernel candidate_kernel(DeviceContext& device, Launch& launch, const std::string& lesson_source,
                            const std::string& layout, const Problem& problem, const cl::Buffer& input,
                            const cl::Buffer& output, int N, int items, int pairs_x);

}  // namespace conv
