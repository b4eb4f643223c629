// What the test programs share: one device for the whole process (chosen by
// the same CLCONV_* variables as the executables), a fresh random seed per
// run that is printed on failure, and random images and filters.
#pragma once
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "common/machinery/device_choice.hpp"
#include "common/machinery/guard.hpp"
#include "common/machinery/program_cache.hpp"
#include "common/machinery/random_inputs.hpp"
#include "common/machinery/reference.hpp"
#include "common/machinery/report.hpp"
#include "common/machinery/settings.hpp"
#include "coursework/student_kernel.hpp"

namespace conv::test {

// The device every test uses, random images and filters
// (common/machinery/random_inputs.hpp), and a student's kernel in place of a step's
// own (coursework/student_kernel.hpp), as the grader uses them.
inline DeviceContext& device() { return environment_device(); }
using conv::random_filter;
using conv::random_image;
using conv::kernel_variable;
using conv::use_student_kernel;

// Seed for this process: CLCONV_TEST_SEED if set, else a fresh random one.
// Tests put it in an INFO() so a failure prints it.
std::uint32_t run_seed();
std::string seed_note();  // "seed 1234 (rerun with CLCONV_TEST_SEED=1234)"

// The fields of one CSV line, split at commas, empty ones kept.
std::vector<std::string> csv_fields(const std::string& line);

}  // namespace conv::test
