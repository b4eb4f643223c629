// Step 8's tuned choices, as explicit settings (the tests run a GPU's on any
// device through them).
#pragma once
#include <map>
#include <string>

#include "common/machinery/device_choice.hpp"
#include "common/machinery/filter_specs.hpp"
#include "common/machinery/program_cache.hpp"

namespace conv {

struct Step9Defaults {
  std::string variant;                          // what variant auto runs: passes or fused
  std::map<std::string, std::string> settings;  // block, column-block, rows, columns, unroll
};

// What variant auto and every setting's auto resolve to for `filter` on a
// device with these facts and work-group wg_x x wg_y.
Step9Defaults step8_default_settings(const DeviceFacts& facts, const Filter& filter, int wg_x, int wg_y);

}  // namespace conv
