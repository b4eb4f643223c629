// Step 6's tuned choices that its filter bank (extras.cpp) shares.
#pragma once
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "common/device.hpp"

namespace conv {

// Whether the loop over tile rows is unrolled when --unroll is auto: for
// F <= 7 on a GPU (F <= 15 with the weights inline), F <= 3 on a CPU
// (bench/experiments.sh unroll and inline).
bool step6_unroll_rows_by_default(const DeviceFacts& facts, int filter_width, bool weights_inline = false);

// Whether the weights are copied to local memory when --weights is auto.
bool step6_weights_local_by_default(const DeviceFacts& facts, int filter_width);

// Whether the weights are compiled into a kernel built for the filter
// (--weights inline) when --weights is auto; before the local choice.
bool step6_weights_inline_by_default(const DeviceFacts& facts, int filter_width);

// Whether the tile copy is one flat loop over its float4s (--copy flat)
// when --copy is auto.
bool step6_flat_copy_by_default(const DeviceFacts& facts);

// Whether each block row is one vector (--shape vectors) when --shape is auto.
bool step6_vector_block_by_default(const DeviceFacts& facts, int filter_width);

// The blocks --block auto tries, best first; the first whose tile fits wins.
std::vector<std::pair<int, int>> step6_blocks_by_default(const DeviceFacts& facts, int filter_width,
                                                         bool vectors);

// The first of those whose tile (and local weights) fits the device's local
// memory with work-group wg_x x wg_y; the last one if none does.
std::pair<int, int> step6_block_that_fits(const DeviceFacts& facts, int filter_width, bool vectors,
                                          bool weights_local, int wg_x, int wg_y);

// What --block, --unroll, --weights and --shape auto resolve to on a device
// with these facts, as explicit settings (the tests run a GPU's choices on
// any device through them).
std::map<std::string, std::string> step6_default_settings(const DeviceFacts& facts, int filter_width, int wg_x,
                                                          int wg_y);

}  // namespace conv
