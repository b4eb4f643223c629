// The checks every refused hostile input must pass (one line, an exit
// status, no signal, nothing written); running them is tests/process.hpp.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "common/machinery/platform/process.hpp"
#include "tests/process.hpp"

namespace conv::test {

// Every registered step's executable.
std::vector<std::string> step_programs();

// A new empty folder under the scratch folder, for one run's --output.
std::string fresh_dir(const std::string& name);

// Runs `program` with `args` plus --output DIR/out.pfm (out.csv for the
// histogram and sweep) and --reps 1, and checks that it refused cleanly: exit
// `status`, no signal, stderr one line starting with the program's name and
// containing `needle` (when `one_line` is false, a build log: such a line
// among others), no output file nor temporary file (.clconv-*, *.tmp.*,
// sweep's *.partial).
// Returns the outcome for further checks.
Outcome expect_refusal(const std::string& program, std::vector<std::string> args, int status,
                    const std::string& needle, const Env& env = {}, bool one_line = true);

// build/bin/`program` with `args` under an address-space limit of
// `memory_bytes` and a time limit, through the harness's child runner (its
// result's `seconds` is the wall time). No address-space limit under
// AddressSanitizer, whose shadow memory needs terabytes of it: there the
// time limit alone bounds the run.
conv::ChildResult run_bounded(const std::string& program, const std::vector<std::string>& args,
                              std::uint64_t memory_bytes, double timeout_s);

}  // namespace conv::test
