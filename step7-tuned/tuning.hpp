// Step 7's search space (docs/step7-tuned.md): every choice step 6's direct
// sum leaves to the device, as one configuration; the documented defaults
// when nothing is tuned; and the store of each device's tuned winners.
#pragma once
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "common/machinery/device_choice.hpp"
#include "common/machinery/program_cache.hpp"

namespace conv {

// One point of the search space. Each field is one of step 7's options.
struct TunedConfig {
  std::string weights = "constant";  // constant, local or inline
  std::string tile = "on";           // on (the tile in local memory) or off (reads through the caches)
  std::string shape = "rows";        // rows or vectors
  std::string copy = "rows";         // rows or flat
  std::string unroll = "off";        // the loop over tile rows: on or off
  int block_x = 4, block_y = 4;      // outputs per work-item
  int wg_x = 16, wg_y = 16;          // the work-group

  // "weights=inline tile=off shape=rows copy=rows unroll=on block=4x4 wg=32x4"
  std::string text() const;
  // The options, by name, as step 7's --set takes them (the work-group apart).
  std::map<std::string, std::string> settings() const;
  bool operator==(const TunedConfig& o) const { return text() == o.text(); }
};

// Parses text() back; std::nullopt for anything else (a damaged store line).
std::optional<TunedConfig> parse_tuned_config(const std::string& text);

// The documented defaults, one per kind of device and none per width
// (docs/step7-tuned.md says why each): a GPU reads through its caches
// (tile off) with the weights in constant memory, blocks 4x4 in rows,
// work-group 32x4; a CPU keeps the tile and gives each work-item a vector
// block 16x4 for its SIMD lanes, the weights in constant memory, the
// loop over tile rows unrolled up to F = 31, work-group 16x16, except up
// to F = 3, where it runs the GPU's tile-less 4x4 rows, unrolled.
TunedConfig documented_defaults(const DeviceFacts& facts, int filter_width);

// Why a configuration cannot run on this device at this width (its tile
// and weights over the local memory, a work-group over the device's limit,
// a vector block wider than 16, a shape or weights place the tile-less
// kernel does not have), or "" when it can.
std::string ruled_out(const DeviceFacts& facts, int filter_width, const TunedConfig& c);

// The search space at one width: every combination of the options' values,
// blocks from 4x1 to 16x8 and the work-groups a device of this kind uses,
// less what ruled_out removes; the documented defaults first, then every
// structure (weights, tile, shape, copy, unroll) at the defaults' block and
// work-group, then the rest. `small` keeps a few of each.
std::vector<TunedConfig> search_space(const DeviceFacts& facts, int filter_width, bool small = false);

// The tuner's moves from `centre` along one parameter (one of settings(),
// or "wg"): for each other value of it, the configurations of the space
// with that value that differ from centre in the fewest other parameters.
// Mostly that is the parameter alone; where a value forces others (the
// tile-less kernel has the rows shape only), the move takes those along.
std::vector<TunedConfig> descent_moves(const std::vector<TunedConfig>& space, const TunedConfig& centre,
                                       const std::string& parameter);

// The store: one line per (device, driver, filter width) in the user's cache
// folder (tuned-step7.txt in cache_dir("clconv")), the winner and its time.
std::string tuned_store_path();  // "" when there is no cache folder
std::optional<TunedConfig> stored_winner(const DeviceFacts& facts, int filter_width);
// Every width's stored winner for this device and driver, in one read.
std::map<int, TunedConfig> stored_winners(const DeviceFacts& facts);
// Replaces the line for this device, driver and width; false when nothing
// could be written (no cache folder, or an unusable one).
bool store_winner(const DeviceFacts& facts, int filter_width, const TunedConfig& winner, double median_ms);

}  // namespace conv
