// Child processes for the grader: each (submission, case) pair runs in its
// own process group with a time limit, its output in files, and no way to
// take the grader down with it (coursework/README: docs/coursework.md).
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace conv::grade {

using Env = std::vector<std::pair<std::string, std::string>>;

struct ChildSpec {
  std::vector<std::string> argv;  // argv[0] is the program's path
  Env env;                        // set (or replaced) on top of the grader's own
  std::vector<std::string> unset; // removed from the environment
  double timeout_s = 60;
  std::string out_path, err_path; // where stdout and stderr go
  // Limits set in the child before it starts its program (0: not set).
  // Output files are capped at file_bytes; core dumps are always off.
  std::uint64_t file_bytes = 64u << 20, memory_bytes = 0, processes = 0;
  std::uint64_t cpu_seconds = 0;
  // Become uid/gid 65534 (nobody), with no supplementary groups, before
  // starting the program: for the sandbox when the grader runs as root.
  bool drop_to_nobody = false;
  // Caps on the whole case, checked about every 150 ms while it runs (0:
  // none): the disk used under disk_folder, and the resident memory and the
  // threads of the child's whole process tree. A case over one is killed.
  std::string disk_folder;
  std::uint64_t disk_bytes = 0, tree_memory_bytes = 0;
  int tree_threads = 0;
  // Polled while the child runs; returning true ends it early (not a timeout).
  std::function<bool()> done_early;
};

struct ChildResult {
  int status = -1;     // exit status, or -1 when it did not exit
  int signal = 0;      // the signal that ended it, when one did
  bool timed_out = false, ended_early = false;
  std::string over_cap;  // "used more than 1 GiB of disk": killed for that cap
  double seconds = 0;  // wall time
  std::string out, err;  // the first 8 MiB of each
};

// Runs the child and waits for it. A child that outlives its limit is killed
// with its whole process group (PoCL's threads, any helper it started).
// Output files are capped (a kernel that prints forever ends with SIGXFSZ),
// core dumps are off, and the child is killed when the grader's thread that
// started it ends (PR_SET_PDEATHSIG), so a grader killed from outside takes
// its cases with it.
ChildResult run_child(const ChildSpec& spec);

// Kills every child still running and makes later run_child() calls refuse;
// for the grader's SIGINT/SIGTERM handling.
void kill_all_children();

// "SIGSEGV (segmentation fault)" for 11, and so on.
std::string signal_text(int signal);

}  // namespace conv::grade
