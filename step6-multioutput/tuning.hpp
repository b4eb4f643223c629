// Step 6's tuned choices (tuning.cpp), and its filter bank's filters and
// blocks, which the launcher, step6-bank and the tests share.
#pragma once
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "common/device.hpp"
#include "common/filter.hpp"

namespace conv {

class Step;
std::unique_ptr<Step> make_step6_multioutput();  // launcher.cpp

// Whether the loop over tile rows is unrolled when --unroll is auto: for
// F <= 7 on a GPU (F <= 15 with the weights inline), F <= 3 on a CPU
// (bench/experiments.sh unroll and inline).
bool step6_unroll_rows_by_default(const DeviceFacts& facts, int filter_width, bool weights_inline = false);

// Whether the vector shape's loop over tile rows is unrolled when --unroll
// is auto (F <= 31).
bool step6_unroll_vectors_by_default(int filter_width);

// Whether the weights are copied to local memory when --weights is auto.
bool step6_weights_local_by_default(const DeviceFacts& facts, int filter_width);

// Whether the weights are compiled into a kernel built for the filter
// (--weights inline) when --weights is auto; before the local choice.
bool step6_weights_inline_by_default(const DeviceFacts& facts, int filter_width);

// Whether the tile copy is one flat loop over its float4s (--copy flat)
// when --copy is auto.
bool step6_flat_copy_by_default(const DeviceFacts& facts);

// Whether the blocks read the input straight from global memory, without
// the tile (--tile off), when --tile is auto.
bool step6_direct_by_default(const DeviceFacts& facts, int filter_width);

// The block --block auto gives without the tile (--tile off).
std::pair<int, int> step6_direct_block(const DeviceFacts& facts, int filter_width);

// Whether each block row is one vector (--shape vectors) when --shape is auto.
bool step6_vector_block_by_default(const DeviceFacts& facts, int filter_width);

// The blocks --block auto tries, best first; the first whose tile fits wins.
std::vector<std::pair<int, int>> step6_blocks_by_default(const DeviceFacts& facts, int filter_width,
                                                         bool vectors);

// The first of those whose tile (and local weights) fits the device's local
// memory with work-group wg_x x wg_y; the last one if none does.
std::pair<int, int> step6_block_that_fits(const DeviceFacts& facts, int filter_width, bool vectors,
                                          bool weights_local, int wg_x, int wg_y);

// What --block, --unroll, --weights, --shape and --tile auto resolve to on a device
// with these facts, as explicit settings (the tests run a GPU's choices on
// any device through them).
std::map<std::string, std::string> step6_default_settings(const DeviceFacts& facts, int filter_width, int wg_x,
                                                          int wg_y);

// ---- the filter bank: --bank N, N filters in one pass (bank.cl) ----------

// The block --block auto gives a bank of 2 to 16 filters: it shrinks as the
// bank grows (4x4 for 1 and 2 filters, 4x2 for 4, 4x1 for 8 and 16), so that
// the BLOCK_X * BLOCK_Y * BANK sums stay about 32 registers. UsageError for
// a bank size bank.cl does not take.
std::pair<int, int> default_bank_block(int bank);

// The `bank` filters whose planes step 6 computes with --bank: filter 0 is
// `filter` itself. For random:F:S (random:F is seed 1) filter k is
// random:F:(S + k), the filters step6-bank has always drawn; for any other
// filter, filter k is `filter` with every weight times k + 1. Each filter
// differs from the others (unless every weight is 0), so a plane written
// to the wrong place, or twice, fails the comparison with its reference.
std::vector<Filter> step6_bank_filters(const Filter& filter, int bank);

}  // namespace conv
