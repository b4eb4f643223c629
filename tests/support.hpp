// What the test programs share: one device for the whole process (chosen by
// the same CLCONV_* variables as the executables), a fresh random seed per
// run that is printed on failure, and random images and filters.
#pragma once
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "common/device.hpp"
#include "common/filter.hpp"
#include "common/image.hpp"
#include "common/step.hpp"

namespace conv::test {

// The device every test uses: CLCONV_PLATFORM / CLCONV_DEVICE /
// CLCONV_DEVICE_TYPE, else the default choice.
DeviceContext& device();

// Seed for this process: CLCONV_TEST_SEED if set, else a fresh random one.
// Tests put it in an INFO() so a failure prints it.
std::uint32_t run_seed();
std::string seed_note();  // "seed 1234 (rerun with CLCONV_TEST_SEED=1234)"

Image random_image(int width, int height, std::mt19937& rng);
// A random F x F filter with weights in [-1, 1].
Filter random_filter(int width, std::mt19937& rng);

// Coursework (docs/coursework.md): CLCONV_KERNEL_STEP<N>=FILE makes every
// conformance case of step N build FILE instead of the step's embedded kernel.
// The variable for a step: "step3-local" -> "CLCONV_KERNEL_STEP3".
std::string kernel_variable(const std::string& step_name);
// When the step's variable is set, puts the file's text and path into
// `options` and says once per process, on stderr, which file is graded. A
// relative path is looked up in the working directory, then in the
// repository root (ctest runs the tests in the build folder). A file that
// cannot be read throws Error naming the variable and the file: the case
// fails, and the embedded kernel is never used in its place.
void use_student_kernel(const std::string& step_name, RunOptions& options);

// The fields of one CSV line, split at commas, empty ones kept.
std::vector<std::string> csv_fields(const std::string& line);

}  // namespace conv::test
