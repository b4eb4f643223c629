// Child processes, the one runner that the steps' --kernel supervision
// (common/machinery/supervisor.hpp) and the grader (coursework/) share,
// and the few other process calls the harness makes: a page a forked child
// and its parent share, and ending the process at once (the watchdog).
//
// A child does one of two things: runs a program (an argv, exec'd), or runs
// a function of this program in a forked copy of it (a body). Its standard
// output and error go to files, stay this process's, or, for stderr, are
// held back through a pipe. It can have a time limit, resource limits, a
// user of its own, and checks polled while it runs; a child that outlives
// its limit is killed with its whole process group.
//
// Implementations: process_posix.cpp (Linux and macOS) and
// process_windows.cpp. On Windows there is no fork(): a body runs in this
// process (child_processes_available() says so, and the supervisor then
// runs without supervision, as it does where fork() fails); an argv runs
// through CreateProcess in a job object (the process group's stand-in),
// with the time limit, the output files, the checks and done_early. Resource
// limits, drop_to_nobody and signals do not exist there: those fields are
// ignored, and a crash is reported by the exception code's signal where one
// matches (an access violation as SIGSEGV).
#pragma once
#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace conv {

// Environment variables to set (or replace) on top of this process's own.
using Env = std::vector<std::pair<std::string, std::string>>;

// A child's process ID (pid_t on POSIX, a DWORD on Windows).
using ProcessId = long;

struct ChildSpec {
  // What the child runs: a program (argv[0] is its path; its stdin is the
  // null device), or, when argv is empty, `body` in a forked copy of this
  // process (stdin shared), which ends with std::exit(body()): exit
  // handlers run and standard output is flushed, as after main() returns.
  std::vector<std::string> argv;
  std::function<int()> body;
  Env env;                         // set (or replaced) in the child's environment
  std::vector<std::string> unset;  // removed from it
  // Where stdout and stderr go: a file (made, or emptied) when a path is
  // given, else this process's own. With hold_err (and no err_path),
  // stderr comes back through a pipe in ChildResult::err; past
  // kHeldErrBytes all of it, and everything after, is passed on to this
  // process's stderr as it comes (ChildResult::err_passed_on).
  std::string out_path, err_path;
  bool hold_err = false;
  double timeout_s = 0;  // wall time before it is killed; 0: no limit
  // The child and whatever it starts get a process group of their own, which
  // a timeout, a cap, done_early and kill_all_children() kill whole. Off,
  // the child stays in this process's group (a terminal's Ctrl-C reaches
  // both) and only the child itself is killed.
  bool own_group = true;
  // Resource limits set in the child before it runs its program or body (0:
  // not set): its output files' size (over it, SIGXFSZ), its address space,
  // the processes and threads of its user, its CPU time (SIGXCPU at the
  // limit, SIGKILL 5 s later); no_core_dumps sets the core file size to 0.
  std::uint64_t file_bytes = 0, memory_bytes = 0, processes = 0, cpu_seconds = 0;
  bool no_core_dumps = false;
  // Become uid/gid 65534 (nobody), with no supplementary groups, before
  // running the program: for a sandbox when this process runs as root.
  bool drop_to_nobody = false;
  // Called about every cap_interval_s while the child runs, with its
  // process ID: the cap it is over, in words ("used more than 1 GiB of
  // disk"), or "" while it is within them. A child over one is killed
  // (ChildResult::over_cap). The runner itself knows no caps: the grader
  // passes its own (coursework/case_caps.hpp).
  std::function<std::string(ProcessId)> over_cap;
  double cap_interval_s = 0.15;
  // Polled while the child runs; true ends it early (not a timeout).
  std::function<bool()> done_early;
};

// How much held-back stderr is kept before it is passed on.
constexpr std::size_t kHeldErrBytes = std::size_t{1} << 20;

struct ChildResult {
  int status = -1;  // exit status, or -1 when it did not exit (or was killed by the runner)
  int signal = 0;   // the signal that ended it, when one did
  bool timed_out = false, ended_early = false;
  std::string over_cap;  // the cap it was killed for, in the words of ChildSpec::over_cap
  double seconds = 0;    // wall time
  // The first 8 MiB of the output files, and the held-back stderr.
  std::string out, err;
  bool err_passed_on = false;  // the held-back stderr grew past kHeldErrBytes
};

// Runs the child and waits for it. The child starts with no signal blocked,
// and ends when the thread that started it does (Linux: PR_SET_PDEATHSIG;
// macOS: a body's child checks its parent twice a second, a program is not
// followed), so a runner killed from outside takes its children with it.
// Throws Error when no child can be started (fork fails, or after
// kill_all_children()), and when a program cannot be run at all (exit
// status 127: not found; 126: its output files, limits or user could not
// be set) and said nothing.
ChildResult run_child(const ChildSpec& spec);

// Kills every child still running (its process group) and makes later
// run_child() calls throw; for a SIGINT/SIGTERM handler's thread.
void kill_all_children();

// True where a body runs in a child process of its own (POSIX); false on
// Windows, where run_child runs a body in this process.
bool child_processes_available();

// "SIGSEGV (segmentation fault: an access outside the process's memory)"
// for SIGSEGV, and so on: the name, and what it means, in one line.
std::string signal_text(int signal);

// Signals that come from outside a program, not from what it ran: SIGINT,
// SIGTERM, SIGHUP, SIGPIPE (those that exist here).
bool signal_from_outside(int signal);

// Writes `text` to stderr unbuffered (a write(2) on POSIX).
void write_stderr(const std::string& text);

// Writes `line` to stderr and ends the process with `status` at once: no
// exit handlers, no destructors, no locks taken, so that it is safe while
// other threads are inside an OpenCL driver.
[[noreturn]] void exit_now(int status, const std::string& line);

// An int that this process and a child running a body share: what the
// child stores, this process reads after it ends (an anonymous shared page
// on POSIX). Where no page can be shared (Windows, or mmap fails), it is
// this process's own memory, and shared() is false.
class SharedInt {
 public:
  explicit SharedInt(int initial = 0);
  ~SharedInt();
  SharedInt(const SharedInt&) = delete;
  SharedInt& operator=(const SharedInt&) = delete;
  std::atomic<int>& value() { return *value_; }
  bool shared() const { return shared_; }

 private:
  std::atomic<int>* value_;
  bool shared_ = false;
};

}  // namespace conv
