// Runs the project's executables as subprocesses, for the tests that check
// what a user sees (tests/process.hpp).
#include "tests/process.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <thread>

#include "tests/files.hpp"

namespace conv::test {

int Outcome::err_lines() const { return static_cast<int>(std::count(err.begin(), err.end(), '\n')); }

namespace {

Outcome run_once(const std::string& program, const std::vector<std::string>& args, const Env& env,
                 int timeout_s) {
  const std::string exe = std::string(CLCONV_BIN_DIR) + "/" + program;
  const std::string out = scratch_dir() + "/run.stdout", err = scratch_dir() + "/run.stderr";
  std::vector<std::string> argv_text = {exe};
  argv_text.insert(argv_text.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& a : argv_text) argv.push_back(a.data());
  argv.push_back(nullptr);
  // The environment is built before fork(): the child of a threaded process
  // (PoCL starts threads) may only call async-signal-safe functions.
  std::vector<std::string> env_text;
  for (char** e = environ; *e; ++e) {
    const std::string entry = *e;
    const bool replaced = std::any_of(env.begin(), env.end(), [&](const auto& kv) {
      return entry.rfind(kv.first + "=", 0) == 0;
    });
    if (!replaced) env_text.push_back(entry);
  }
  for (const auto& [name, value] : env) env_text.push_back(name + "=" + value);
  std::vector<char*> envp;
  for (auto& e : env_text) envp.push_back(e.data());
  envp.push_back(nullptr);
  const pid_t pid = fork();
  if (pid == 0) {
    const int o = open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    const int e = open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    const int in = open("/dev/null", O_RDONLY);
    dup2(o, 1);
    dup2(e, 2);
    dup2(in, 0);
    execve(exe.c_str(), argv.data(), envp.data());
    _exit(127);
  }
  Outcome r;
  int wstatus = 0;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(timeout_s);
  while (waitpid(pid, &wstatus, WNOHANG) == 0) {
    if (std::chrono::steady_clock::now() > deadline) {
      kill(pid, SIGKILL);
      waitpid(pid, &wstatus, 0);
      r.timed_out = true;
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  if (WIFEXITED(wstatus)) r.status = WEXITSTATUS(wstatus);
  if (WIFSIGNALED(wstatus)) r.signal = WTERMSIG(wstatus);
  const auto o = read_bytes(out), e = read_bytes(err);
  r.out.assign(o.begin(), o.end());
  r.err.assign(e.begin(), e.end());
  return r;
}

}  // namespace

// Under LeakSanitizer a program's exit-time leak scan sometimes crashes by
// itself ("Tracer caught signal 11", google/sanitizers#1353) after the
// program has done its work; with abort_on_error the program then dies by a
// signal. That says nothing about the program (tests/reliability/
// tracer_crashes.py explains it for whole tests), and a rerun passes; a real
// sanitizer finding is printed as such and is never rerun.
bool tracer_crash_only(const Outcome& r) {
  if (r.status == 0) return false;
  if (r.err.find("Tracer caught signal") == std::string::npos ||
      r.err.find("LeakSanitizer has encountered a fatal error") == std::string::npos)
    return false;
  for (const char* finding : {"ERROR: AddressSanitizer", "ERROR: LeakSanitizer", "runtime error:"})
    if (r.err.find(finding) != std::string::npos) return false;
  return true;
}

Outcome run_program(const std::string& program, const std::vector<std::string>& args, const Env& env,
                    int timeout_s) {
  Outcome r = run_once(program, args, env, timeout_s);
  if (tracer_crash_only(r)) {
    const std::string crashed = r.err;
    r = run_once(program, args, env, timeout_s);
    r.crashed_err = crashed;
  }
  return r;
}

}  // namespace conv::test
