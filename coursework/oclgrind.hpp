// Running a crashed case again under Oclgrind, which checks every memory
// access of the kernel and names the line of the first bad one.
#pragma once
#include <string>

#include "common/machinery/platform/process.hpp"
#include "coursework/sandbox.hpp"

namespace conv::grade {

// $OCLGRIND if set, else `oclgrind` on the PATH; "" when there is none.
std::string find_oclgrind();

// One conformance case as a command: the suite's binary, the case, the
// environment that selects the kernel file, the seed and the device.
struct CaseCommand {
  std::string program;  // build/bin/conformance_tests
  std::string test;     // the case's full name, e.g. "step3-local: 1919x1079"
  Env env;
};

// The test name as Catch's command line takes it (commas escaped).
std::string catch_test_spec(const std::string& test);

// The shell line that runs the case under Oclgrind, to print when it is not
// installed: it runs as printed where it is.
std::string oclgrind_command(const CaseCommand& c);

// Runs a case of the grader again under Oclgrind: the case runner (the
// grader's own host code; Oclgrind interprets the kernel) in the case's
// sandbox (`box`, its folder `work`, `runner_args` as sandboxed() takes
// them) with the case's limits and caps, at most `limit_s`, ended at the
// first report. Returns that report in one line ("Invalid write of size 4
// at global memory, line 61 of bob.cl: output[i] = sum;"), or "" if none.
std::string first_oclgrind_finding_in_sandbox(const std::string& oclgrind, const Sandbox& box,
                                              const std::string& work,
                                              const std::vector<std::string>& runner_args,
                                              const std::string& kernel_file, double limit_s);

// The first report in an Oclgrind log, in one line; "" for an empty log.
std::string summarize_oclgrind_log(const std::string& log, const std::string& kernel_file);

}  // namespace conv::grade
