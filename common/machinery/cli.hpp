// The command line every executable shares (CLI11): device and problem
// options, strict validators, and the guarded main() with its exit statuses.
// A step's whole main() is in step_main.hpp.
#pragma once
#include <functional>
#include <string>

#include <CLI/CLI.hpp>

#include "common/machinery/device_choice.hpp"
#include "common/core/step.hpp"

namespace conv {

struct DeviceOptions {
  DeviceChoice choice;
};

// --list-devices (prints the list and ends the parse: exit 0), --platform, --device, --device-type (each with an
// environment variable: CLCONV_PLATFORM, CLCONV_DEVICE, CLCONV_DEVICE_TYPE).
void add_device_options(CLI::App& app, DeviceOptions& options);

// What one convolution run is about: image, filter, border.
struct ProblemOptions {
  std::string image = "synthetic:2048x2048";
  std::string filter = "motion45";
  std::string border = "zero";
};
void add_problem_options(CLI::App& app, ProblemOptions& options);

// Runs `body` and turns every failure into one line on stderr and an exit
// status: 0 success, 1 runtime error (standard output that could not be
// written among them), 2 usage error. Nothing escapes.
int guarded_main(const std::string& program, const std::function<int()>& body);

// Parses argv into `app`; returns -1 to go on, or the exit status for --help
// and --list-devices (0) and for a parse error (2, after one line on stderr).
int parse_command_line(CLI::App& app, int argc, char** argv);

// A limit in seconds, 0 to `max` (--timeout, the grader's --case-timeout):
// a whole decimal number, so NaN, infinities and negatives exit 2 (CLI::Range
// alone lets NaN through: every comparison with it is false).
CLI::Validator seconds_limit(double max = 1e6);
// Seconds as a person writes them: "60", "0.5", "1000000".
std::string format_seconds(double s);
// A file name that is not empty: `--output ""` is a mistake (exit 2), not
// "write nothing".
CLI::Validator file_name();

// --timeout's default when --kernel is given: a kernel that never returns
// ends the run with one line instead of hanging it.
constexpr double kDefaultKernelTimeout = 60;

}  // namespace conv
