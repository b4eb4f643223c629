// The child-process runner on Linux and macOS (process.hpp).
#include "common/machinery/platform/process.hpp"

#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <map>
#include <mutex>
#include <new>
#include <thread>

#include "common/core/errors.hpp"
#include "common/machinery/platform/process_shared.hpp"

extern char** environ;

namespace conv {

namespace {

std::mutex live_mutex;
std::map<pid_t, bool> live;  // the children running now: pid -> in a process group of its own
bool stopping = false;

// This process's environment with the spec's changes, for execve().
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

void write_all(int fd, const char* data, std::size_t size) {
  std::size_t done = 0;
  while (done < size) {
    const ssize_t n = ::write(fd, data + done, size - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    done += static_cast<std::size_t>(n);
  }
}

// Held-back stderr: collected until it passes kHeldErrBytes, then passed on.
struct HeldErr {
  int fd = -1;
  std::string text;
  bool passing_on = false;
  void take(const char* piece, std::size_t n) {
    text.append(piece, n);
    if (passing_on || text.size() > kHeldErrBytes) {
      write_all(2, text.data(), text.size());
      text.clear();
      passing_on = true;
    }
  }
  // Waits up to `ms` for output and reads what came; false once the pipe is closed.
  bool read_some(int ms) {
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, ms) <= 0) return true;
    char piece[4096];
    const ssize_t n = ::read(fd, piece, sizeof piece);
    if (n > 0) take(piece, static_cast<std::size_t>(n));
    return n > 0 || (n < 0 && errno == EINTR);
  }
  // What the child wrote just before it ended. A process it started may
  // keep the pipe open, so this reads what is there and does not wait.
  void drain() {
    ::fcntl(fd, F_SETFL, O_NONBLOCK);
    char piece[4096];
    ssize_t n;
    while ((n = ::read(fd, piece, sizeof piece)) > 0) take(piece, static_cast<std::size_t>(n));
  }
};

#ifndef __linux__
// Without PR_SET_PDEATHSIG: a body's child ends itself when its parent is gone.
void follow_parent(pid_t parent) {
  std::thread([parent] {
    for (;;) {
      if (::getppid() != parent) ::_exit(1);
      std::this_thread::sleep_for(std::chrono::milliseconds(500));
    }
  }).detach();
}
#endif

// In the child, between fork() and the program or body. Only
// async-signal-safe calls: the parent may have threads.
[[noreturn]] void start_child(const ChildSpec& spec, pid_t parent, const sigset_t& none, const int err_pipe[2],
                              char* const* argv, char* const* envp) {
  if (spec.own_group) ::setpgid(0, 0);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);  // a parent may block SIGINT in its threads
  // The files first: a folder of the parent's is not nobody's to write in.
  if (!spec.out_path.empty()) {
    const int fd = ::open(spec.out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0 || ::dup2(fd, 1) < 0) ::_exit(126);
    ::close(fd);
  }
  if (!spec.err_path.empty()) {
    const int fd = ::open(spec.err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0 || ::dup2(fd, 2) < 0) ::_exit(126);
    ::close(fd);
  } else if (err_pipe[1] >= 0) {
    if (::dup2(err_pipe[1], 2) < 0) ::_exit(126);
    ::close(err_pipe[0]);
    ::close(err_pipe[1]);
  }
  if (argv) {
    const int fd = ::open("/dev/null", O_RDONLY);
    if (fd < 0 || ::dup2(fd, 0) < 0) ::_exit(126);
    ::close(fd);
  }
  auto limit = [](int resource, std::uint64_t soft, std::uint64_t hard) {
    const rlimit r{static_cast<rlim_t>(soft), static_cast<rlim_t>(hard)};
    return ::setrlimit(resource, &r) == 0;
  };
  bool limited = true;
  if (spec.file_bytes) limited = limited && limit(RLIMIT_FSIZE, spec.file_bytes, spec.file_bytes);
  if (spec.no_core_dumps) limited = limited && limit(RLIMIT_CORE, 0, 0);
  if (spec.memory_bytes) limited = limited && limit(RLIMIT_AS, spec.memory_bytes, spec.memory_bytes);
  if (spec.processes) limited = limited && limit(RLIMIT_NPROC, spec.processes, spec.processes);
  if (spec.cpu_seconds) limited = limited && limit(RLIMIT_CPU, spec.cpu_seconds, spec.cpu_seconds + 5);
  if (!limited) ::_exit(126);
  if (spec.drop_to_nobody && (::setgroups(0, nullptr) != 0 || ::setgid(65534) != 0 || ::setuid(65534) != 0))
    ::_exit(126);
#ifdef __linux__
  // After the change of user, which clears it.
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
#endif
  if (::getppid() != parent) ::_exit(126);  // the parent is gone already
  if (argv) {
    ::execve(argv[0], argv, envp);
    ::_exit(127);
  }
#ifndef __linux__
  follow_parent(parent);
#endif
  for (const auto& [name, value] : spec.env) ::setenv(name.c_str(), value.c_str(), 1);
  for (const auto& name : spec.unset) ::unsetenv(name.c_str());
  int status = 1;
  try {
    status = spec.body();
  } catch (...) {
  }
  std::exit(status);  // flushes standard output
}

}  // namespace

ChildResult run_child(const ChildSpec& spec) {
  // Everything an argv child needs is prepared before fork(): the child of
  // a threaded process may only make async-signal-safe calls.
  const bool program = !spec.argv.empty();
  std::vector<std::string> argv_text = spec.argv, env_text;
  std::vector<char*> argv, envp;
  if (program) {
    env_text = environment(spec);
    for (auto& a : argv_text) argv.push_back(a.data());
    argv.push_back(nullptr);
    for (auto& e : env_text) envp.push_back(e.data());
    envp.push_back(nullptr);
  } else if (!spec.body) {
    throw Error("run_child: neither a program nor a function to run");
  }
  sigset_t none;
  sigemptyset(&none);
  HeldErr held;
  int err_pipe[2] = {-1, -1};
  if (spec.hold_err && spec.err_path.empty()) {
    if (::pipe(err_pipe) != 0) throw Error(std::string("cannot make a pipe: ") + std::strerror(errno));
    // Not for other children started meanwhile: the end is the child's.
    ::fcntl(err_pipe[0], F_SETFD, FD_CLOEXEC);
    ::fcntl(err_pipe[1], F_SETFD, FD_CLOEXEC);
    held.fd = err_pipe[0];
  }
  if (!program) {  // what is buffered would be written twice
    std::cout.flush();
    std::cerr.flush();
  }
  const pid_t parent = ::getpid();

  const auto start = std::chrono::steady_clock::now();
  pid_t pid;
  {
    std::lock_guard<std::mutex> lock(live_mutex);
    const char* why = stopping ? "child processes were stopped" : nullptr;
    pid = why ? -1 : ::fork();
    if (pid < 0 && !why) why = std::strerror(errno);
    if (pid < 0) {
      if (err_pipe[0] >= 0) {
        ::close(err_pipe[0]);
        ::close(err_pipe[1]);
      }
      throw Error(std::string("cannot start a process: ") + why);
    }
    if (pid == 0) start_child(spec, parent, none, err_pipe, program ? argv.data() : nullptr, envp.data());
    if (spec.own_group) ::setpgid(pid, pid);  // also here, so that a kill right away finds the group
    live[pid] = spec.own_group;
  }
  if (err_pipe[1] >= 0) ::close(err_pipe[1]);
  const pid_t target = spec.own_group ? -pid : pid;

  ChildResult r;
  int wstatus = 0;
  bool pipe_open = held.fd >= 0;
  process_detail::watch(
      spec, pid, start, r,
      [&] {
        const pid_t done = ::waitpid(pid, &wstatus, WNOHANG);
        if (done == pid || (done < 0 && errno != EINTR)) return true;
        if (pipe_open)
          pipe_open = held.read_some(20);
        else
          std::this_thread::sleep_for(std::chrono::milliseconds(20));
        return false;
      },
      [&] {
        ::kill(target, SIGKILL);
        ::waitpid(pid, &wstatus, 0);
      });
  if (spec.own_group) ::kill(-pid, SIGKILL);  // whatever the child left behind in its group
  {
    std::lock_guard<std::mutex> lock(live_mutex);
    live.erase(pid);
  }
  if (held.fd >= 0) {
    if (pipe_open) held.drain();
    ::close(held.fd);
  }
  if (!r.timed_out && !r.ended_early && r.over_cap.empty()) {
    if (WIFEXITED(wstatus)) r.status = WEXITSTATUS(wstatus);
    if (WIFSIGNALED(wstatus)) r.signal = WTERMSIG(wstatus);
  }
  process_detail::finish(spec, start, r);
  if (spec.err_path.empty()) r.err = std::move(held.text);
  r.err_passed_on = held.passing_on;
  if (program && (r.status == 127 || r.status == 126) && r.out.empty() && r.err.empty())
    throw Error(spec.argv[0] + (r.status == 127 ? ": cannot run it"
                                                : ": cannot start it (its output files, limits or user)"));
  return r;
}

void kill_all_children() {
  std::lock_guard<std::mutex> lock(live_mutex);
  stopping = true;
  for (const auto& [pid, own_group] : live) ::kill(own_group ? -pid : pid, SIGKILL);
}

bool child_processes_available() { return true; }

std::string process_detail::other_signal_text(int sig) {
#ifdef __linux__
  const char* abbrev = ::sigabbrev_np(sig);
  const std::string name = abbrev ? std::string("SIG") + abbrev : "";
#elif defined(__APPLE__) || defined(__FreeBSD__)
  std::string name;
  if (sig > 0 && sig < NSIG) {
    name = "SIG";
    for (const char* c = sys_signame[sig]; *c; ++c) name += static_cast<char>(std::toupper(*c));
  }
#else
  const std::string name;
#endif
  const char* what = ::strsignal(sig);
  return (name.empty() ? "signal " + std::to_string(sig) : name) + (what ? " (" + std::string(what) + ")" : "");
}

void write_stderr(const std::string& text) { write_all(2, text.data(), text.size()); }

void exit_now(int status, const std::string& line) {
  write_all(2, line.data(), line.size());
  ::_exit(status);
}

SharedInt::SharedInt(int initial) {
  void* page = ::mmap(nullptr, sizeof(std::atomic<int>), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  shared_ = page != MAP_FAILED;
  value_ = shared_ ? new (page) std::atomic<int>(initial) : new std::atomic<int>(initial);
}

SharedInt::~SharedInt() {
  if (shared_)
    ::munmap(value_, sizeof(std::atomic<int>));
  else
    delete value_;
}

}  // namespace conv
