#include "common/core/step.hpp"

#include <algorithm>

#include "common/core/errors.hpp"
#include "common/core/text.hpp"
#include "common/core/run_step.hpp"

namespace conv {

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

OptionCheck one_of(std::vector<std::string> words) {
  return [words = std::move(words)](const std::string& value) -> std::string {
    return std::find(words.begin(), words.end(), value) != words.end() ? "" : "it takes " + join(words);
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
