// Step 7's search space, defaults and store (tuning.hpp).
#include "step7-tuned/tuning.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <set>
#include <sstream>

#include "common/machinery/cache_dir.hpp"
#include "common/machinery/device_choice.hpp"
#include "common/machinery/filter_specs.hpp"
#include "common/machinery/guard.hpp"
#include "common/machinery/image_files.hpp"
#include "common/machinery/parse.hpp"
#include "common/machinery/program_cache.hpp"

namespace conv {

std::string TunedConfig::text() const {
  return "weights=" + weights + " tile=" + tile + " shape=" + shape + " copy=" + copy + " unroll=" + unroll +
         " block=" + std::to_string(block_x) + "x" + std::to_string(block_y) + " wg=" + std::to_string(wg_x) +
         "x" + std::to_string(wg_y);
}

std::map<std::string, std::string> TunedConfig::settings() const {
  return {{"weights", weights}, {"tile", tile}, {"shape", shape}, {"copy", copy}, {"unroll", unroll},
          {"block", std::to_string(block_x) + "x" + std::to_string(block_y)}};
}

std::optional<TunedConfig> parse_tuned_config(const std::string& text) {
  std::istringstream in(text);
  std::map<std::string, std::string> fields;
  for (std::string word; in >> word;) {
    const auto eq = word.find('=');
    if (eq == std::string::npos) return std::nullopt;
    fields[word.substr(0, eq)] = word.substr(eq + 1);
  }
  const std::map<std::string, std::vector<std::string>> choices = {{"weights", {"constant", "local", "inline"}},
                                                                   {"tile", {"on", "off"}},
                                                                   {"shape", {"rows", "vectors"}},
                                                                   {"copy", {"rows", "flat"}},
                                                                   {"unroll", {"on", "off"}}};
  if (fields.size() != choices.size() + 2) return std::nullopt;
  for (const auto& [name, values] : choices)
    if (!fields.count(name) || std::find(values.begin(), values.end(), fields[name]) == values.end())
      return std::nullopt;
  TunedConfig c;
  c.weights = fields["weights"];
  c.tile = fields["tile"];
  c.shape = fields["shape"];
  c.copy = fields["copy"];
  c.unroll = fields["unroll"];
  try {
    std::tie(c.block_x, c.block_y) = parse_size(fields.at("block"), "block", 16);
    std::tie(c.wg_x, c.wg_y) = parse_size(fields.at("wg"), "wg", 1024);
  } catch (const std::exception&) {
    return std::nullopt;
  }
  return c;
}

TunedConfig documented_defaults(const DeviceFacts& facts, int filter_width) {
  TunedConfig c;
  if (facts.is_gpu) {
    c.tile = "off";
    c.wg_x = 32;
    c.wg_y = 4;
  } else if (filter_width <= 3) {
    // Up to F = 3 a CPU runs the GPU's kernel without the tile, unrolled:
    // its few loads per output come from the CPU's caches, and the copy
    // and barrier cost more than they save (docs/step7-tuned.md).
    c.tile = "off";
    c.unroll = "on";
  } else {
    c.shape = "vectors";
    c.block_x = 16;
    // Unrolled up to F = 31: beyond, the F * F vector multiply-adds of one
    // unrolled loop make a build of minutes for little gain.
    c.unroll = filter_width <= 31 ? "on" : "off";
  }
  return c;
}

std::string ruled_out(const DeviceFacts& facts, int F, const TunedConfig& c) {
  if (c.block_x % 4 != 0 || c.block_x < 4 || c.block_x > 16 || c.block_y < 1 || c.block_y > 16)
    return "block " + std::to_string(c.block_x) + "x" + std::to_string(c.block_y) +
           ": the width is 4, 8, 12 or 16 and the height 1 to 16";
  if (c.shape == "vectors" && c.block_x != 4 && c.block_x != 8 && c.block_x != 16)
    return "shape vectors: the block width is a vector width, 4, 8 or 16";
  const std::size_t items = static_cast<std::size_t>(c.wg_x) * c.wg_y;
  if (facts.max_work_group > 0 && items > facts.max_work_group)
    return "work-group " + std::to_string(c.wg_x) + "x" + std::to_string(c.wg_y) + " over the device's " +
           std::to_string(facts.max_work_group);
  const std::size_t weights = c.weights == "local" ? sizeof(float) * F * round_up(F, 4) : 0;
  if (c.tile == "off") {
    if (c.shape == "vectors") return "tile off: the tile-less kernel has the rows shape only";
    if (c.copy == "flat") return "tile off: there is no copy to share";
    if (weights + 1024 > facts.local_mem_bytes) return "weights " + std::to_string(weights) + " bytes, over the local memory";
    return "";
  }
  const std::size_t tile = sizeof(float) * round_up(static_cast<std::size_t>(c.wg_x) * c.block_x + F - 1, 4) *
                           (static_cast<std::size_t>(c.wg_y) * c.block_y + F - 1);
  if (tile + weights + 1024 > facts.local_mem_bytes)  // a KiB spare for the compiler's own
    return "tile and weights " + std::to_string(tile + weights) + " bytes, over the local memory";
  return "";
}

std::vector<TunedConfig> search_space(const DeviceFacts& facts, int F, bool small) {
  // The defaults first (the tuner's descent starts there), then each
  // structure (weights, tile, shape, copy, unroll) at the default block and
  // work-group, then every block and work-group of each structure.
  const TunedConfig base = documented_defaults(facts, F);
  std::vector<std::pair<int, int>> blocks = {{4, 1},  {4, 2},  {4, 4}, {4, 6}, {4, 8}, {4, 10},
                                             {4, 12}, {4, 16}, {8, 1}, {8, 2}, {8, 4}, {8, 8},
                                             {16, 1}, {16, 2}, {16, 4}, {16, 8}};
  std::vector<std::pair<int, int>> groups =
      facts.is_gpu ? std::vector<std::pair<int, int>>{{32, 4}, {32, 8}, {64, 4}, {16, 16}, {32, 2}, {128, 1}}
                   : std::vector<std::pair<int, int>>{{16, 16}, {32, 4}, {8, 8}};
  std::vector<std::string> weights = {"constant", "local", "inline"}, tiles = {"on", "off"},
                           shapes = {"rows", "vectors"}, copies = {"rows", "flat"}, unrolls = {"off", "on"};
  if (small) {
    blocks = {{4, 2}, {8, 1}};
    groups = {{8, 8}};
    weights = {"constant", "inline"};
    copies = {"rows"};
  }
  std::vector<TunedConfig> space;
  auto add = [&](const TunedConfig& c) {
    if (std::find(space.begin(), space.end(), c) != space.end() || !ruled_out(facts, F, c).empty()) return;
    space.push_back(c);
  };
  add(base);
  std::vector<TunedConfig> structures;
  for (const auto& w : weights)
    for (const auto& t : tiles)
      for (const auto& s : shapes)
        for (const auto& cp : copies)
          for (const auto& u : unrolls) {
            TunedConfig c = base;
            c.weights = w, c.tile = t, c.shape = s, c.copy = cp, c.unroll = u;
            if (small) std::tie(c.wg_x, c.wg_y) = groups.front();
            structures.push_back(c);  // add() leaves out what ruled_out names
            add(c);
          }
  for (const auto& c : structures)
    for (auto [bx, by] : blocks)
      for (auto [gx, gy] : groups) {
        TunedConfig d = c;
        d.block_x = bx, d.block_y = by, d.wg_x = gx, d.wg_y = gy;
        add(d);
      }
  return space;
}

namespace {

std::map<std::string, std::string> all_settings(const TunedConfig& c) {
  auto s = c.settings();
  s["wg"] = std::to_string(c.wg_x) + "x" + std::to_string(c.wg_y);
  return s;
}

}  // namespace

std::vector<TunedConfig> descent_moves(const std::vector<TunedConfig>& space, const TunedConfig& centre,
                                       const std::string& parameter) {
  const auto from = all_settings(centre);
  // For each other value of the parameter: the fewest other changes, and
  // the configurations that make only those.
  std::map<std::string, std::pair<int, std::vector<TunedConfig>>> nearest;
  for (const auto& c : space) {
    const auto to = all_settings(c);
    if (to.at(parameter) == from.at(parameter)) continue;
    int others = 0;
    for (const auto& [name, value] : to)
      if (name != parameter && value != from.at(name)) ++others;
    auto [it, fresh] = nearest.emplace(to.at(parameter), std::make_pair(others, std::vector<TunedConfig>{c}));
    if (fresh) continue;
    if (others < it->second.first) it->second = {others, {c}};
    else if (others == it->second.first) it->second.second.push_back(c);
  }
  std::vector<TunedConfig> moves;
  for (const auto& [value, found] : nearest) moves.insert(moves.end(), found.second.begin(), found.second.end());
  return moves;
}

// ---- the store ----------------------------------------------------------------

namespace {

// Tabs separate the fields: device names have spaces.
std::string store_key(const DeviceFacts& facts, int F) {
  return facts.name + "\t" + facts.driver + "\t" + std::to_string(F) + "\t";
}

std::vector<std::string> store_lines(const std::string& path) {
  std::vector<std::string> lines;
  if (path.empty() || !cache_entry_usable(path)) return lines;
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);)
    if (!line.empty()) lines.push_back(line);
  return lines;
}

}  // namespace

std::string tuned_store_path() {
  const std::string dir = cache_dir("clconv");
  return dir.empty() ? "" : dir + "/tuned-step7.txt";
}

std::optional<TunedConfig> stored_winner(const DeviceFacts& facts, int F) {
  const std::string key = store_key(facts, F);
  for (const auto& line : store_lines(tuned_store_path())) {
    if (line.rfind(key, 0) != 0) continue;
    const std::string rest = line.substr(key.size());
    return parse_tuned_config(rest.substr(0, rest.find('\t')));  // a damaged line: no winner
  }
  return std::nullopt;
}

std::map<int, TunedConfig> stored_winners(const DeviceFacts& facts) {
  // As stored_winner for each width: its first line decides, a damaged one
  // is no winner.
  const std::string device = facts.name + "\t" + facts.driver + "\t";
  std::map<int, TunedConfig> out;
  std::set<std::string> seen;
  for (const auto& line : store_lines(tuned_store_path())) {
    if (line.rfind(device, 0) != 0) continue;
    const std::string rest = line.substr(device.size());
    const std::size_t tab = rest.find('\t');
    if (tab == std::string::npos || !seen.insert(rest.substr(0, tab)).second) continue;
    const std::string config = rest.substr(tab + 1);
    const auto winner = parse_tuned_config(config.substr(0, config.find('\t')));
    int F = 0;
    if (winner && std::sscanf(rest.c_str(), "%d", &F) == 1) out.emplace(F, *winner);
  }
  return out;
}

bool store_winner(const DeviceFacts& facts, int F, const TunedConfig& winner, double median_ms) {
  const std::string path = tuned_store_path();
  if (path.empty()) return false;
  const std::string key = store_key(facts, F);
  std::string text;
  for (const auto& line : store_lines(path))
    if (line.rfind(key, 0) != 0) text += line + "\n";
  std::ostringstream ms;
  ms << median_ms;
  text += key + winner.text() + "\t" + ms.str() + " ms\n";
  return write_cache_file(path, std::vector<std::uint8_t>(text.begin(), text.end()));
}

}  // namespace conv
