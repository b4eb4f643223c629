// The whole executable of a step: its main() parses the shared command line
// and the step's own options, loads the problem, runs the step, reports,
// verifies and saves. Every step's main.cpp is one call of step_main.
#pragma once
#include "common/core/step.hpp"

namespace conv {

// `footer` closes --help (step 7 names its tuning mode there).
int step_main(int argc, char** argv, Step& step, const std::string& footer = "");

}  // namespace conv
