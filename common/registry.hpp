// Every step, in lesson order: the list is in common/registry.cpp. The tour,
// the sweeps and the conformance suite iterate it, so adding a step means
// its folder (with a CMakeLists.txt), a name in CLCONV_STEPS in the
// top-level CMakeLists.txt, and a line in registry.cpp.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "common/step.hpp"

namespace conv {

using StepFactory = std::unique_ptr<Step> (*)();

const std::vector<StepFactory>& step_factories();

std::vector<std::unique_ptr<Step>> all_steps();
// By folder name ("step3-local") or number ("3"); throws UsageError.
std::unique_ptr<Step> find_step(const std::string& name);

}  // namespace conv
