// Step 6's tuned choices that its filter bank (extras.cpp) shares.
#pragma once
#include "common/device.hpp"

namespace conv {

// Whether the loop over tile rows is unrolled when --unroll is auto: for
// F <= 7 on a GPU, F <= 3 on a CPU (bench/experiments.sh unroll).
bool step6_unroll_rows_by_default(const DeviceFacts& facts, int filter_width);

}  // namespace conv
