// A student's kernel in place of a step's own (docs/coursework.md):
// CLCONV_KERNEL_STEP<N>=FILE makes every conformance case of step N, and
// every case the grader runs, build FILE instead of the embedded kernel.
#pragma once
#include <string>

#include "common/machinery/device_choice.hpp"
#include "common/machinery/guard.hpp"
#include "common/machinery/program_cache.hpp"
#include "common/machinery/reference.hpp"
#include "common/machinery/report.hpp"
#include "common/machinery/settings.hpp"

namespace conv {

// The variable for a step: "step3-local" -> "CLCONV_KERNEL_STEP3".
std::string kernel_variable(const std::string& step_name);
// When the step's variable is set, puts the file's text and path into
// `options` and says once per process, on stderr, which file is graded. A
// relative path is looked up in the working directory, then in the
// repository root (ctest runs the tests in the build folder). A file that
// cannot be read throws Error naming the variable and the file: the case
// fails, and the embedded kernel is never used in its place.
void use_student_kernel(const std::string& step_name, RunOptions& options);

}  // namespace conv
