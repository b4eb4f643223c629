// Running the executables as a user meets them, for the hostile-input tests:
// extra environment variables, a time limit, and the checks every refused
// input must pass (one line, an exit status, no signal, nothing written).
#pragma once
#include <string>
#include <utility>
#include <vector>

namespace conv::test {

struct Outcome {
  int status = -1;  // exit status, or -1 when the program did not exit
  int signal = 0;   // the signal that ended it, if any
  bool timed_out = false;
  std::string out, err;
  int err_lines() const;
};

using Env = std::vector<std::pair<std::string, std::string>>;

// Runs build/bin/<program> with stdin from /dev/null; kills it after
// `timeout_s` seconds (a hang is a failure too).
Outcome run_program(const std::string& program, const std::vector<std::string>& args,
                    const Env& env = {}, int timeout_s = 120);

// Every registered step's executable.
std::vector<std::string> step_programs();

// A new empty folder under the scratch folder, for one run's --output.
std::string fresh_dir(const std::string& name);

// Runs `program` with `args` plus --output DIR/out.pfm (out.csv for the
// histogram) and --reps 1, and checks that it refused cleanly: exit
// `status`, no signal, stderr one line starting with the program's name and
// containing `needle` (when `one_line` is false, a build log: such a line
// among others), no output file nor *.tmp.*.
// Returns the outcome for further checks.
Outcome expect_refusal(const std::string& program, std::vector<std::string> args, int status,
                    const std::string& needle, const Env& env = {}, bool one_line = true);

}  // namespace conv::test
