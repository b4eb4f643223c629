// Every step registered with clconv_add_step() in CMakeLists.txt, in lesson
// order. The tour, the sweeps and the conformance suite iterate this list, so
// adding a step means adding one line there and nothing else.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "common/step.hpp"

namespace conv {

using StepFactory = std::unique_ptr<Step> (*)();

const std::vector<StepFactory>& step_factories();  // generated at configure time

std::vector<std::unique_ptr<Step>> all_steps();
// By folder name ("step3-local") or number ("3"); throws UsageError.
std::unique_ptr<Step> find_step(const std::string& name);

}  // namespace conv
