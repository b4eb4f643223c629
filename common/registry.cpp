#include "common/registry.hpp"

#include "common/errors.hpp"

namespace conv {

std::vector<std::unique_ptr<Step>> all_steps() {
  std::vector<std::unique_ptr<Step>> steps;
  for (auto factory : step_factories()) steps.push_back(factory());
  return steps;
}

std::unique_ptr<Step> find_step(const std::string& name) {
  std::string known;
  for (auto factory : step_factories()) {
    auto step = factory();
    const std::string n = step->name();
    if (n == name || n.rfind("step" + name + "-", 0) == 0) return step;
    known += (known.empty() ? "" : ", ") + n;
  }
  throw UsageError("no step named '" + name + "' (registered: " + known + ")");
}

}  // namespace conv
