#include "coursework/child.hpp"

#include <fcntl.h>
#include <grp.h>
#include <sys/prctl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <fstream>
#include <iterator>
#include <mutex>
#include <set>
#include <thread>

#include "common/core/errors.hpp"
#include "coursework/case_caps.hpp"

extern char** environ;

namespace conv::grade {

namespace {

std::mutex live_mutex;
std::set<pid_t> live;  // process groups of the children running now
bool stopping = false;

std::string read_head(const std::string& path, std::size_t limit) {
  std::ifstream in(path, std::ios::binary);
  std::string text(limit, '\0');
  in.read(text.data(), static_cast<std::streamsize>(limit));
  text.resize(static_cast<std::size_t>(in.gcount()));
  return text;
}

std::vector<std::string> environment(const ChildSpec& spec) {
  std::vector<std::string> env;
  for (char** e = environ; *e; ++e) {
    const std::string entry = *e;
    const std::string name = entry.substr(0, entry.find('='));
    const bool replaced =
        std::any_of(spec.env.begin(), spec.env.end(), [&](const auto& kv) { return kv.first == name; }) ||
        std::find(spec.unset.begin(), spec.unset.end(), name) != spec.unset.end();
    if (!replaced) env.push_back(entry);
  }
  for (const auto& [name, value] : spec.env) env.push_back(name + "=" + value);
  return env;
}

// The cap the case is over, in words; "" when it is within all of them.
std::string over_cap(const ChildSpec& spec, pid_t pid) {
  if (spec.tree_memory_bytes || spec.tree_threads) {
    const TreeUse t = tree_use(pid);
    if (spec.tree_memory_bytes && t.resident_bytes > spec.tree_memory_bytes)
      return "used more than " + bytes_text(spec.tree_memory_bytes) + " of memory (its processes together)";
    if (spec.tree_threads && t.threads > spec.tree_threads)
      return "ran more than " + std::to_string(spec.tree_threads) + " threads and processes at once";
  }
  if (spec.disk_bytes && !spec.disk_folder.empty()) {
    const DiskUse d = disk_use(spec.disk_folder);
    if (d.bytes > spec.disk_bytes) return "used more than " + bytes_text(spec.disk_bytes) + " of disk";
    if (d.too_deep) return "made folders more than " + std::to_string(kMaxDepth) + " levels deep";
    if (d.too_many) return "made more than " + std::to_string(kMaxEntries) + " files and folders";
  }
  return "";
}

}  // namespace

ChildResult run_child(const ChildSpec& spec) {
  // Everything the child needs is prepared before fork(): the child of a
  // threaded process may only make async-signal-safe calls.
  std::vector<std::string> argv_text = spec.argv, env_text = environment(spec);
  std::vector<char*> argv, envp;
  for (auto& a : argv_text) argv.push_back(a.data());
  argv.push_back(nullptr);
  for (auto& e : env_text) envp.push_back(e.data());
  envp.push_back(nullptr);
  sigset_t none;
  sigemptyset(&none);
  const rlimit file_limit{spec.file_bytes, spec.file_bytes}, no_core{0, 0};
  const rlimit memory{spec.memory_bytes, spec.memory_bytes}, processes{spec.processes, spec.processes};
  // SIGXCPU at the soft limit, SIGKILL a little later.
  const rlimit cpu{spec.cpu_seconds, spec.cpu_seconds + 5};
  const pid_t grader = getpid();

  const auto start = std::chrono::steady_clock::now();
  pid_t pid;
  {
    std::lock_guard<std::mutex> lock(live_mutex);
    if (stopping) throw Error("grading was interrupted");
    pid = fork();
    if (pid < 0) throw Error(std::string("cannot start a process: ") + std::strerror(errno));
    if (pid == 0) {
      setpgid(0, 0);
      sigprocmask(SIG_SETMASK, &none, nullptr);  // the grader blocks SIGINT in its threads
      // The output files first: the grader's scratch folder is not the
      // unprivileged user's to write in.
      const int o = open(spec.out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      const int e = open(spec.err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      const int in = open("/dev/null", O_RDONLY);
      if (o < 0 || e < 0 || in < 0) _exit(126);
      dup2(o, 1);
      dup2(e, 2);
      dup2(in, 0);
      bool limited = setrlimit(RLIMIT_FSIZE, &file_limit) == 0 && setrlimit(RLIMIT_CORE, &no_core) == 0;
      if (spec.memory_bytes) limited = limited && setrlimit(RLIMIT_AS, &memory) == 0;
      if (spec.processes) limited = limited && setrlimit(RLIMIT_NPROC, &processes) == 0;
      if (spec.cpu_seconds) limited = limited && setrlimit(RLIMIT_CPU, &cpu) == 0;
      if (!limited) _exit(126);
      if (spec.drop_to_nobody && (setgroups(0, nullptr) != 0 || setgid(65534) != 0 || setuid(65534) != 0))
        _exit(126);
      // After the change of user, which clears it; ends the child if the
      // grader's thread ends (and so the grader) before it does.
      prctl(PR_SET_PDEATHSIG, SIGKILL);
      if (getppid() != grader) _exit(126);
      execve(argv[0], argv.data(), envp.data());
      _exit(127);
    }
    setpgid(pid, pid);  // also here, so that a kill right away finds the group
    live.insert(pid);
  }

  ChildResult r;
  int wstatus = 0;
  const auto deadline = start + std::chrono::duration<double>(spec.timeout_s);
  auto next_check = start;
  for (;;) {
    const pid_t done = waitpid(pid, &wstatus, WNOHANG);
    if (done == pid || (done < 0 && errno != EINTR)) break;
    const auto now = std::chrono::steady_clock::now();
    const bool late = now > deadline;
    if (!late && now >= next_check) {
      next_check = now + std::chrono::milliseconds(150);
      r.over_cap = over_cap(spec, pid);
    }
    const bool early = !late && r.over_cap.empty() && spec.done_early && spec.done_early();
    if (late || early || !r.over_cap.empty()) {
      kill(-pid, SIGKILL);
      waitpid(pid, &wstatus, 0);
      r.timed_out = late;
      r.ended_early = early;
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  kill(-pid, SIGKILL);  // whatever the child left behind in its group
  {
    std::lock_guard<std::mutex> lock(live_mutex);
    live.erase(pid);
  }
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (!r.timed_out && !r.ended_early && r.over_cap.empty()) {
    if (WIFEXITED(wstatus)) r.status = WEXITSTATUS(wstatus);
    if (WIFSIGNALED(wstatus)) r.signal = WTERMSIG(wstatus);
  }
  r.out = read_head(spec.out_path, 8u << 20);
  r.err = read_head(spec.err_path, 8u << 20);
  if ((r.status == 127 || r.status == 126) && r.out.empty() && r.err.empty())
    throw Error(spec.argv[0] + (r.status == 127 ? ": cannot run it"
                                                : ": cannot start it (its output files, limits or user)"));
  return r;
}

void kill_all_children() {
  std::lock_guard<std::mutex> lock(live_mutex);
  stopping = true;
  for (pid_t group : live) kill(-group, SIGKILL);
}

std::string signal_text(int signal) {
  const char* name = sigabbrev_np(signal);
  const char* what = strsignal(signal);
  std::string text = name ? std::string("SIG") + name : "signal " + std::to_string(signal);
  if (what) text += std::string(" (") + what + ")";
  return text;
}

}  // namespace conv::grade
