#include "common/machinery/settings.hpp"

#include <algorithm>

#include "common/core/errors.hpp"
#include "common/core/text.hpp"
#include "common/machinery/parse.hpp"

namespace conv {
OptionCheck auto_or_block(int max_side) {
  return [max_side](const std::string& value) -> std::string {
    const std::string takes = "it takes auto, or a block WxH with W a multiple of 4, both 1.." +
                              std::to_string(max_side);
    if (value == "auto") return "";
    try {
      const auto [w, h] = parse_size(value, "block", max_side);
      (void)h;
      return w % 4 == 0 ? "" : takes;
    } catch (const UsageError&) {
      return takes;
    }
  };
}

void add_setting(std::map<std::string, std::string>& settings, const std::string& name,
                 const std::string& value, const std::string& option) {
  const auto [it, added] = settings.emplace(name, value);
  if (!added && it->second != value)
    throw UsageError(option + " " + name + ": given twice, as '" + it->second + "' and '" + value + "'");
}

std::pair<std::string, std::string> split_setting(const std::string& text, const std::string& option,
                                                  const std::string& format) {
  const auto eq = text.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == text.size())
    throw UsageError(option + ": expected " + format + ", got '" + text + "'");
  return {text.substr(0, eq), text.substr(eq + 1)};
}

void check_setting_names(const std::vector<const Step*>& steps, const std::vector<std::string>& names,
                         const std::string& variants_how) {
  const std::string option = "--set";
  for (const auto& name : names) {
    if (name == "variant") throw UsageError(option + " variant: the variant is no setting (" + variants_how + ")");
    bool known = false;
    for (const Step* step : steps)
      for (const auto& o : step->options()) known |= o.name == name;
    if (known) continue;
    std::vector<std::string> all;
    for (const Step* step : steps)
      for (const auto& o : step->options())
        if (o.name != "variant" && std::find(all.begin(), all.end(), o.name) == all.end()) all.push_back(o.name);
    throw UsageError(option + " " + name + ": " +
                     (steps.size() == 1 ? steps.front()->name() + " has no" : "no step chosen has a") +
                     " setting '" + name + "'" + (all.empty() ? " (it has none)" : " (settings: " + join(all) + ")"));
  }
}

void check_setting_names(const std::vector<StepVariants>& runs, const std::vector<std::string>& names,
                         const std::string& variants_how) {
  std::vector<const Step*> steps;
  for (const auto& r : runs) steps.push_back(r.step);
  check_setting_names(steps, names, variants_how);
  for (const auto& name : names) {
    bool used = false;
    std::vector<std::string> ignoring;  // "step8-separable fused"
    for (const auto& r : runs)
      for (const auto& v : r.variants) {
        bool has = false;
        for (const auto& o : r.step->options()) has |= o.name == name;
        if (!has) continue;
        if (r.step->uses(name, v))
          used = true;
        else
          ignoring.push_back(r.step->name() + " " + v);
      }
    if (!used)
      throw UsageError("--set " + name + ": no variant that will run uses it (" + join(ignoring) +
                       " ignores it; " + variants_how + ")");
  }
}

}  // namespace conv
