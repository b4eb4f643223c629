// Step 6's tuned choices that its filter bank (extras.cpp) shares.
#pragma once
#include <utility>
#include <vector>

#include "common/device.hpp"

namespace conv {

// Whether the loop over tile rows is unrolled when --unroll is auto: for
// F <= 7 on a GPU, F <= 3 on a CPU (bench/experiments.sh unroll).
bool step6_unroll_rows_by_default(const DeviceFacts& facts, int filter_width);

// Whether the weights are copied to local memory when --weights is auto.
bool step6_weights_local_by_default(const DeviceFacts& facts, int filter_width);

// Whether each block row is one vector (--shape vectors) when --shape is auto.
bool step6_vector_block_by_default(const DeviceFacts& facts, int filter_width);

// The blocks --block auto tries, best first; the first whose tile fits wins.
std::vector<std::pair<int, int>> step6_blocks_by_default(const DeviceFacts& facts, int filter_width,
                                                         bool vectors);

}  // namespace conv
