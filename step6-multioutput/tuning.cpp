// Step 6's tuned choices (tuning.hpp): what --block, --unroll, --weights,
// --shape and --copy auto resolve to on each kind of device, and the filter
// bank's blocks and filters.
#include "step6-multioutput/tuning.hpp"

#include <cstdint>

#include "common/errors.hpp"
#include "common/launch.hpp"

namespace conv {

bool step6_unroll_rows_by_default(const DeviceFacts& facts, int filter_width, bool weights_inline) {
  if (facts.is_gpu) return filter_width <= (weights_inline ? 15 : 7);
  return filter_width <= 3;
}

// The vector shape's loop over tile rows, unrolled up to F = 31: 1.1 to 1.5
// times faster on PoCL at F = 15 and 31 (bench/experiments.sh unroll-cpu).
bool step6_unroll_vectors_by_default(int filter_width) { return filter_width <= 31; }

bool step6_weights_local_by_default(const DeviceFacts& facts, int filter_width) {
  return facts.is_gpu && filter_width > 7;
}

bool step6_weights_inline_by_default(const DeviceFacts& facts, int filter_width) {
  return facts.is_gpu && filter_width >= 7 && filter_width <= 15;
}

bool step6_flat_copy_by_default(const DeviceFacts& facts) { return facts.is_gpu; }

// On a GPU the blocks read the input straight through the caches at every
// width: faster than with the tile at each width the H200 sweep ran, F = 3
// to 31 (bench/experiments.sh direct, docs/results/direct-h200.csv). On a
// CPU only up to F = 3, where the kernel moves data more than it computes
// (bench/experiments.sh direct-cpu, docs/results/direct-cpu-pocl.csv);
// above, the vector shape with its tile is faster.
bool step6_direct_by_default(const DeviceFacts& facts, int filter_width) {
  return facts.is_gpu || filter_width <= 3;
}

std::pair<int, int> step6_direct_block(const DeviceFacts& facts, int filter_width) {
  // A CPU's: 16x8 with a 32x4 work-group, the fastest on PoCL at 2048x2048
  // (direct-cpu-pocl.csv).
  if (!facts.is_gpu) return {16, 8};
  // The H200's fastest with the 32x4 work-group: 4x4 up to F = 15, 8x4
  // above (docs/results/direct-h200.csv); at F = 7, where the arithmetic
  // and the copy take about as long, 4x10 (the wider search,
  // docs/results/direct-f7-h200.csv).
  if (filter_width == 7) return {4, 10};
  return filter_width <= 15 ? std::pair<int, int>{4, 4} : std::pair<int, int>{8, 4};
}

bool step6_vector_block_by_default(const DeviceFacts& facts, int filter_width) {
  return !facts.is_gpu && filter_width > 3;
}

std::vector<std::pair<int, int>> step6_blocks_by_default(const DeviceFacts& facts, int filter_width,
                                                         bool vectors) {
  // The CPU's choices: the fastest blocks on PoCL at the lessons' 2048x2048
  // (docs/results/blocks2048-pocl.csv): the vector shape 16x8 up to F = 15,
  // 16x4 (as fast, half the tile) above; register rows (F = 3) 16x4.
  if (vectors) {
    if (filter_width <= 15) return {{16, 8}, {16, 4}, {8, 4}, {8, 2}, {4, 1}};
    return {{16, 4}, {8, 4}, {8, 2}, {4, 1}};
  }
  if (!facts.is_gpu) return {{16, 4}, {8, 4}, {4, 4}, {4, 2}, {4, 1}};
  return {{4, 8}, {4, 4}, {4, 2}, {4, 1}};
}

std::pair<int, int> step6_block_that_fits(const DeviceFacts& facts, int F, bool vectors, bool weights_local,
                                          int wg_x, int wg_y) {
  const auto tuned = step6_blocks_by_default(facts, F, vectors);
  const std::size_t weights = weights_local ? sizeof(float) * F * round_up(F, 4) : 0;
  for (auto [bx, by] : tuned) {
    const std::size_t tile = sizeof(float) * round_up(static_cast<std::size_t>(wg_x) * bx + F - 1, 4) *
                                 (static_cast<std::size_t>(wg_y) * by + F - 1) +
                             weights;
    if (tile + 1024 <= facts.local_mem_bytes) return {bx, by};  // a KiB spare
  }
  return tuned.back();  // too large even so: prepare() reports the limit
}

std::map<std::string, std::string> step6_default_settings(const DeviceFacts& facts, int F, int wg_x, int wg_y) {
  const bool direct = step6_direct_by_default(facts, F);
  const bool vectors = !direct && step6_vector_block_by_default(facts, F);
  const std::string weights = step6_weights_inline_by_default(facts, F)             ? "inline"
                              : !direct && step6_weights_local_by_default(facts, F) ? "local"
                                                                                    : "constant";
  const auto [bx, by] =
      direct ? step6_direct_block(facts, F) : step6_block_that_fits(facts, F, vectors, weights == "local", wg_x, wg_y);
  const bool unroll = vectors ? step6_unroll_vectors_by_default(F)
                              : step6_unroll_rows_by_default(facts, F, weights == "inline");
  return {{"block", std::to_string(bx) + "x" + std::to_string(by)},
          {"copy", step6_flat_copy_by_default(facts) ? "flat" : "rows"},
          {"unroll", unroll ? "on" : "off"},
          {"weights", weights},
          {"shape", vectors ? "vectors" : "rows"},
          {"tile", direct ? "off" : "on"}};
}

std::pair<int, int> default_bank_block(int bank) {
  if (bank != 1 && bank != 2 && bank != 4 && bank != 8 && bank != 16)
    throw UsageError("a filter bank holds 1, 2, 4, 8 or 16 filters (OpenCL's vector widths), not " +
                     std::to_string(bank));
  if (bank <= 2) return {4, 4};
  if (bank == 4) return {4, 2};
  return {4, 1};
}

namespace {

// The seed of a filter named random:F or random:F:S, when F is its width;
// 0 for every other filter.
std::uint32_t random_seed(const Filter& filter) {
  const std::string prefix = "random:" + std::to_string(filter.width);
  if (filter.name == prefix) return 1;
  if (filter.name.rfind(prefix + ":", 0) != 0) return 0;
  const std::string seed = filter.name.substr(prefix.size() + 1);
  if (seed.empty() || seed.find_first_not_of("0123456789") != std::string::npos || seed.size() > 10) return 0;
  return static_cast<std::uint32_t>(std::stoul(seed));
}

}  // namespace

std::vector<Filter> step6_bank_filters(const Filter& filter, int bank) {
  default_bank_block(bank);  // UsageError for a size bank.cl does not take
  std::vector<Filter> filters = {filter};
  const std::uint32_t seed = random_seed(filter);
  for (int k = 1; k < bank; ++k) {
    if (seed > 0) {
      const std::uint64_t next = std::uint64_t{seed} + k;
      if (next > (1u << 30))
        throw UsageError("--bank " + std::to_string(bank) + " with --filter " + filter.name +
                         ": the bank's filters take the seeds " + std::to_string(seed) + " to " +
                         std::to_string(seed + bank - 1) + ", and a seed is at most " +
                         std::to_string(1u << 30));
      filters.push_back(parse_filter_spec("random:" + std::to_string(filter.width) + ":" + std::to_string(next)));
    } else {
      Filter scaled = filter;
      scaled.name = std::to_string(k + 1) + "*" + filter.name;
      for (float& w : scaled.weights) w *= static_cast<float>(k + 1);
      filters.push_back(std::move(scaled));
    }
  }
  return filters;
}

}  // namespace conv
