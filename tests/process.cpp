// Runs the project's executables as subprocesses, for the tests that check
// what a user sees (tests/process.hpp).
#include "tests/process.hpp"

#include <algorithm>

#include "common/machinery/platform/process.hpp"
#include "tests/files.hpp"

namespace conv::test {

int Outcome::err_lines() const { return static_cast<int>(std::count(err.begin(), err.end(), '\n')); }

namespace {

// Through the project's one child-process runner (common/machinery/platform/
// process.hpp), with stdin from the null device and both outputs in files.
Outcome run_once(const std::string& program, const std::vector<std::string>& args, const Env& env,
                 int timeout_s, const std::string& out_path) {
  ChildSpec spec;
  spec.argv = {std::string(CLCONV_BIN_DIR) + "/" + program};
  spec.argv.insert(spec.argv.end(), args.begin(), args.end());
  spec.env = env;
  spec.out_path = out_path.empty() ? scratch_dir() + "/run.stdout" : out_path;
  spec.err_path = scratch_dir() + "/run.stderr";
  spec.timeout_s = timeout_s;
  const ChildResult c = run_child(spec);
  Outcome r;
  r.status = c.status;
  r.signal = c.signal;
  r.timed_out = c.timed_out;
  if (out_path.empty()) r.out = c.out;
  r.err = c.err;
  return r;
}

}  // namespace

// Under LeakSanitizer a program's exit-time leak scan sometimes crashes by
// itself ("Tracer caught signal 11", google/sanitizers#1353), or cannot
// attach to an exiting thread, after the program has done its work; with
// abort_on_error the program then dies by a signal (a --kernel run's child
// by SIGABRT, which its parent reports in one line). That says nothing
// about the program (tests/reliability/tracer_crashes.py explains it for
// whole tests), and a rerun passes; a real sanitizer finding is printed as
// such and is never rerun.
bool tracer_crash_only(const Outcome& r) {
  if (r.status == 0) return false;
  const std::string hint = "LeakSanitizer does not work under ptrace";
  // A --kernel run's child (common/machinery/supervisor.hpp) that died this
  // way is reported in one line quoting only its last line: the hint that
  // LeakSanitizer prints after its fatal error, and after nothing else.
  const std::string quoted = "ended the process: SIGABRT";
  const std::size_t at = r.err.find(quoted);
  const bool supervised =
      at != std::string::npos && r.err.find("its last line on stderr: \"", at) != std::string::npos &&
      r.err.find(hint, at) != std::string::npos;
  // Its tracer crashed ("Tracer caught signal"), or could not attach to
  // every thread (only the hint about ptrace): either way it gave up.
  if (!supervised && (r.err.find("LeakSanitizer has encountered a fatal error") == std::string::npos ||
                      (r.err.find("Tracer caught signal") == std::string::npos &&
                       r.err.find(hint) == std::string::npos)))
    return false;
  for (const char* finding : {"ERROR: AddressSanitizer", "ERROR: LeakSanitizer", "runtime error:"})
    if (r.err.find(finding) != std::string::npos) return false;
  return true;
}

Outcome run_program(const std::string& program, const std::vector<std::string>& args, const Env& env,
                    int timeout_s, const std::string& out_path) {
  Outcome r = run_once(program, args, env, timeout_s, out_path);
  if (tracer_crash_only(r)) {
    const std::string crashed = r.err;
    r = run_once(program, args, env, timeout_s, out_path);
    r.crashed_err = crashed;
  }
  return r;
}

}  // namespace conv::test
