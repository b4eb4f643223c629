#include "common/step.hpp"

#include <algorithm>

#include "common/errors.hpp"
#include "common/parse.hpp"

namespace conv {

Comparison Step::compare(const Image& output, const Problem& problem,
                         const Reference& reference) const {
  return compare_with_reference(output, reference, problem.filter.width);
}

std::string Step::source(const RunOptions& options) const {
  return options.kernel_source.empty() ? embedded_source() : options.kernel_source;
}

std::string Step::label(const RunOptions& options) const {
  return options.kernel_label.empty() ? name() : options.kernel_label;
}

std::vector<std::string> Step::variants() const {
  for (const auto& o : options())
    if (o.name == "variant") return o.choices;
  return {"default"};
}

std::string Step::variant(const RunOptions& options) const {
  for (const auto& o : this->options())
    if (o.name == "variant") return option(options, "variant");
  // A step with one kernel: its variant is "default".
  auto it = options.values.find("variant");
  if (it != options.values.end() && !it->second.empty() && it->second != "default")
    throw UsageError("--variant: " + name() + " has no variant '" + it->second + "' (it has: default)");
  return "default";
}

std::string Step::option(const RunOptions& options, const std::string& name) const {
  for (const auto& o : this->options()) {
    if (o.name != name) continue;
    auto it = options.values.find(name);
    if (it == options.values.end() || it->second.empty()) return o.default_value;
    if (o.choices.empty()) {
      if (o.check)
        if (const std::string takes = o.check(it->second); !takes.empty())
          throw UsageError("--" + name + ": " + this->name() + " cannot take '" + it->second + "' (" + takes + ")");
      return it->second;
    }
    for (const auto& c : o.choices)
      if (c == it->second) return c;
    std::string list;
    for (const auto& c : o.choices) list += (list.empty() ? "" : ", ") + c;
    throw UsageError("--" + name + ": " + this->name() + " has no " + name + " '" + it->second +
                     "' (it has: " + list + ")");
  }
  throw UsageError(this->name() + " has no option '" + name + "'");
}

namespace {

std::string join(const std::vector<std::string>& words) {
  std::string list;
  for (const auto& w : words) list += (list.empty() ? "" : ", ") + w;
  return list;
}

}  // namespace

OptionCheck one_of(std::vector<std::string> words) {
  return [words = std::move(words)](const std::string& value) -> std::string {
    return std::find(words.begin(), words.end(), value) != words.end() ? "" : "it takes " + join(words);
  };
}

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

bool StepOption::used_by_variant(const std::string& variant) const {
  return used_by.empty() || std::find(used_by.begin(), used_by.end(), variant) != used_by.end();
}

bool Step::uses(const std::string& name, const std::string& variant) const {
  for (const auto& o : options())
    if (o.name == name) return o.used_by_variant(variant);
  return false;
}

void Step::check_options(const RunOptions& options) const {
  describe(options);  // every name and value
  const std::string v = variant(options);
  for (const auto& o : this->options()) {
    if (o.name == "variant" || o.used_by_variant(v)) continue;
    const auto it = options.values.find(o.name);
    if (it == options.values.end() || it->second.empty()) continue;
    std::string users;  // "auto or passes"
    for (const auto& u : o.used_by) users += (users.empty() ? "" : " or ") + u;
    throw UsageError("--" + o.name + " " + it->second + ": " + name() + "'s variant " + v +
                     " ignores it (used by variant " + users + ")");
  }
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

std::string Step::describe(const RunOptions& options) const {
  for (const auto& [key, value] : options.values) {
    bool known = false;
    for (const auto& o : this->options()) known |= o.name == key;
    if (!known && !(key == "variant" && value == "default"))
      throw UsageError(name() + " has no option '" + key + "'");
  }
  std::string text = variant(options);
  for (const auto& o : this->options()) {
    if (o.name == "variant") continue;
    const std::string value = option(options, o.name);
    if (value != o.default_value) text += " " + o.name + "=" + value;
  }
  return text;
}

std::vector<RunOptions> suite_configurations(const Step& step, bool kernel_file) {
  std::vector<RunOptions> configs;
  const auto variants = step.variants();
  for (const auto& v : variants) {
    configs.emplace_back();
    if (variants.size() > 1) configs.back().values["variant"] = v;
  }
  for (const auto& o : step.options()) {
    if (o.name == "variant") continue;
    auto values = o.choices;
    values.insert(values.end(), o.test_values.begin(), o.test_values.end());
    // Each value with the first variant that uses the option.
    const auto user = std::find_if(variants.begin(), variants.end(),
                                   [&](const std::string& v) { return o.used_by_variant(v); });
    for (const auto& value : values)
      if (value != o.default_value && user != variants.end()) {
        configs.emplace_back();
        if (variants.size() > 1) configs.back().values["variant"] = *user;
        configs.back().values[o.name] = value;
      }
  }
  if (kernel_file)
    configs.erase(std::remove_if(configs.begin(), configs.end(),
                                 [&](const RunOptions& c) { return !step.builds_kernel_file(c); }),
                  configs.end());
  return configs;
}

}  // namespace conv
