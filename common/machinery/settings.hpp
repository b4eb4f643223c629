// The option checks and --set settings that the steps' options and the
// tools (tour, sweep, kernel-info) share beyond what a Step declares
// (common/core/step.hpp).
#pragma once
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "common/core/step.hpp"

namespace conv {

// "auto" or a block of outputs WxH: W a multiple of 4, both 1..max_side.
OptionCheck auto_or_block(int max_side);

// --set NAME=VALUE (kernel-info, tour; sweep's NAME=V1,V2): the name and the
// text after '='. UsageError naming `option` unless both are there.
std::pair<std::string, std::string> split_setting(const std::string& text, const std::string& option,
                                                  const std::string& format = "NAME=VALUE");
// The names a tool's --set gives: each must be an option of at least one of
// `steps`, and not "variant" (`variants_how` says how the tool picks them).
// UsageError otherwise. Every tool checks this, then each step's
// check_options() for every run it will make, before any work.
void check_setting_names(const std::vector<const Step*>& steps, const std::vector<std::string>& names,
                         const std::string& variants_how);
// The same, knowing which variants of each step will run: a name is also
// refused when none of them uses it (StepOption::used_by), so
// `sweep --steps 8 --variants fused --set columns=tile` is exit 2.
struct StepVariants {
  const Step* step;
  std::vector<std::string> variants;
};
void check_setting_names(const std::vector<StepVariants>& runs, const std::vector<std::string>& names,
                         const std::string& variants_how);
// NAME=VALUE once more into `settings`: UsageError naming `option` when
// NAME was given before with another value (--set bank=2 --set bank=4).
void add_setting(std::map<std::string, std::string>& settings, const std::string& name,
                 const std::string& value, const std::string& option = "--set");

}  // namespace conv
