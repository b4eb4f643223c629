#include "common/machinery/supervisor.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <new>

#include "common/machinery/cli.hpp"

namespace conv {
namespace {

// The phase lives here, or, during a supervised run, in a page shared with
// the parent, so that the parent can read what the child was doing when it
// died.
std::atomic<int> local_phase{0};
std::atomic<int>* phase = &local_phase;

std::string signal_text(int sig) {
  switch (sig) {
    case SIGSEGV: return "SIGSEGV (segmentation fault: an access outside the process's memory)";
    case SIGBUS: return "SIGBUS (bus error: an access the memory cannot serve)";
    case SIGILL: return "SIGILL (illegal instruction; __builtin_trap() compiles to one)";
    case SIGTRAP: return "SIGTRAP (trace trap)";
    case SIGFPE: return "SIGFPE (arithmetic exception, such as an integer division by zero)";
    case SIGABRT: return "SIGABRT (abort: an assertion failed, or the driver gave up)";
    case SIGKILL: return "SIGKILL (killed, perhaps for using too much memory)";
    case SIGSYS: return "SIGSYS (bad system call)";
    case SIGXCPU: return "SIGXCPU (over its CPU time limit)";
    case SIGXFSZ: return "SIGXFSZ (over its file size limit)";
    default: {
      const char* name = ::strsignal(sig);
      return "signal " + std::to_string(sig) + (name ? " (" + std::string(name) + ")" : "");
    }
  }
}

std::string phase_text(int p) {
  if (p == static_cast<int>(KernelPhase::building)) return " while it was being built";
  if (p == static_cast<int>(KernelPhase::running)) return " while running on the device";
  return "";
}

// The last non-empty line of `text`, printable ASCII only, at most 300 bytes.
std::string last_line(const std::string& text) {
  std::size_t end = text.size();
  while (end > 0 && (text[end - 1] == '\n' || text[end - 1] == '\r' || text[end - 1] == ' ')) --end;
  if (end == 0) return "";
  const std::size_t newline = text.rfind('\n', end - 1);
  std::size_t start = newline == std::string::npos ? 0 : newline + 1;
  if (end - start > 300) start = end - 300;
  std::string line = text.substr(start, end - start);
  for (char& c : line)
    if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) > 0x7e) c = '?';
  return line;
}

void write_all(int fd, const std::string& text) {
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    done += static_cast<std::size_t>(n);
  }
}

bool not_the_kernels_doing(int sig) {
  return sig == SIGINT || sig == SIGTERM || sig == SIGHUP || sig == SIGPIPE;
}

}  // namespace

KernelPhase current_phase() { return static_cast<KernelPhase>(phase->load()); }

PhaseScope::PhaseScope(KernelPhase p) : previous_(current_phase()) { phase->store(static_cast<int>(p)); }
PhaseScope::~PhaseScope() { phase->store(static_cast<int>(previous_)); }

int run_supervised(const std::string& program, const std::string& kernel_label,
                   const std::function<int()>& body) {
  if (kernel_label.empty()) return body();
  void* page = ::mmap(nullptr, sizeof(std::atomic<int>), PROT_READ | PROT_WRITE,
                      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  int err_pipe[2];
  if (page == MAP_FAILED) return body();  // no supervision rather than no run
  if (::pipe(err_pipe) != 0) {
    ::munmap(page, sizeof(std::atomic<int>));
    return body();
  }
  phase = new (page) std::atomic<int>(local_phase.load());
  std::cout.flush();
  std::cerr.flush();
  const pid_t parent = ::getpid();
  const pid_t child = ::fork();
  if (child < 0) {
    ::close(err_pipe[0]);
    ::close(err_pipe[1]);
    return body();
  }
  if (child == 0) {
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(1);  // the parent is gone already
    ::dup2(err_pipe[1], 2);
    ::close(err_pipe[0]);
    ::close(err_pipe[1]);
    const int status = guarded_main(program, body);
    std::exit(status);  // flushes standard output
  }

  // The parent: collect the child's standard error until it ends. A
  // process the kernel started may keep the pipe open, so the end is the
  // child's exit, not the pipe's.
  ::close(err_pipe[1]);
  constexpr std::size_t kHoldBack = std::size_t{1} << 20;
  std::string held;
  bool passing_on = false;  // past kHoldBack: everything goes straight out
  int wstatus = 0;
  bool exited = false, pipe_open = true;
  char piece[4096];
  while (!exited) {
    if (pipe_open) {
      pollfd p{err_pipe[0], POLLIN, 0};
      if (::poll(&p, 1, 50) > 0) {
        const ssize_t n = ::read(err_pipe[0], piece, sizeof piece);
        if (n > 0) {
          held.append(piece, static_cast<std::size_t>(n));
          if (passing_on || held.size() > kHoldBack) {
            write_all(2, held);
            held.clear();
            passing_on = true;
          }
        } else if (n == 0 || errno != EINTR) {
          pipe_open = false;
        }
      }
    } else {
      ::usleep(20000);
    }
    const pid_t done = ::waitpid(child, &wstatus, WNOHANG);
    exited = done == child || (done < 0 && errno != EINTR);
  }
  if (pipe_open) {  // what the child wrote just before it ended
    ::fcntl(err_pipe[0], F_SETFL, O_NONBLOCK);
    ssize_t n;
    while ((n = ::read(err_pipe[0], piece, sizeof piece)) > 0) held.append(piece, static_cast<std::size_t>(n));
  }
  ::close(err_pipe[0]);
  const int last_phase = phase->load();
  phase = &local_phase;
  ::munmap(page, sizeof(std::atomic<int>));

  if (WIFEXITED(wstatus)) {
    write_all(2, held);
    return WEXITSTATUS(wstatus);
  }
  if (!WIFSIGNALED(wstatus)) {
    write_all(2, held);
    return 1;
  }
  const int sig = WTERMSIG(wstatus);
  if (not_the_kernels_doing(sig)) {
    write_all(2, held);
    ::signal(sig, SIG_DFL);
    ::raise(sig);
    return 128 + sig;
  }
  if (passing_on) write_all(2, held);
  const std::string said = passing_on ? "" : last_line(held);
  write_all(2, program + ": the kernel in " + kernel_label + " ended the process: " + signal_text(sig) +
                   phase_text(last_phase) + (said.empty() ? "" : "; its last line on stderr: \"" + said + "\"") +
                   "\n");
  return 128 + sig;
}

}  // namespace conv
