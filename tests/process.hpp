// Running the project's executables as a user meets them: stdin from
// /dev/null, stdout and stderr captured, extra environment variables, and a
// time limit (a hang is a failure too). The environment is prepared before
// fork(), since the child of a threaded process (PoCL starts threads) may
// only call async-signal-safe functions.
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
  // The stderr of an attempt that failed only by LeakSanitizer's tracer
  // crash and was run again (run_program), else "". Its work happened: a
  // test of what a first run says or leaves behind reads it too.
  std::string crashed_err;
  int err_lines() const;
};

using Env = std::vector<std::pair<std::string, std::string>>;

// True when the program failed only because LeakSanitizer's exit-time
// tracer crashed (no sanitizer finding in its stderr).
bool tracer_crash_only(const Outcome& r);

// Runs build/bin/<program> (CLCONV_BIN_DIR); kills it after `timeout_s`.
// A run that only LeakSanitizer's exit-time tracer crashed runs once more
// (process.cpp says why). With `out_path`, stdout goes there (Outcome::out
// stays empty): "/dev/full" for a disk that is full.
Outcome run_program(const std::string& program, const std::vector<std::string>& args,
                    const Env& env = {}, int timeout_s = 120, const std::string& out_path = "");

}  // namespace conv::test
