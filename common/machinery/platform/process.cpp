// The parts of the child-process runner that need no system call of their
// own (process.hpp, process_shared.hpp): the watch loop, the output files,
// the signals' names.
#include "common/machinery/platform/process_shared.hpp"

#include <csignal>
#include <fstream>

namespace conv {

namespace process_detail {

std::string file_head(const std::string& path, std::size_t limit) {
  std::ifstream in(path, std::ios::binary);
  std::string text(limit, '\0');
  in.read(text.data(), static_cast<std::streamsize>(limit));
  text.resize(static_cast<std::size_t>(in.gcount()));
  return text;
}

void watch(const ChildSpec& spec, ProcessId pid, std::chrono::steady_clock::time_point start, ChildResult& r,
           const std::function<bool()>& ended, const std::function<void()>& kill) {
  using clock = std::chrono::steady_clock;
  const bool limited = spec.timeout_s > 0;
  const auto deadline = start + std::chrono::duration_cast<clock::duration>(std::chrono::duration<double>(spec.timeout_s));
  const auto interval = std::chrono::duration_cast<clock::duration>(std::chrono::duration<double>(spec.cap_interval_s));
  auto next_check = start;
  while (!ended()) {
    const auto now = clock::now();
    const bool late = limited && now > deadline;
    if (!late && spec.over_cap && now >= next_check) {
      next_check = now + interval;
      r.over_cap = spec.over_cap(pid);
    }
    const bool early = !late && r.over_cap.empty() && spec.done_early && spec.done_early();
    if (late || early || !r.over_cap.empty()) {
      kill();
      r.timed_out = late;
      r.ended_early = early;
      return;
    }
  }
}

void finish(const ChildSpec& spec, std::chrono::steady_clock::time_point start, ChildResult& r) {
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (!spec.out_path.empty()) r.out = file_head(spec.out_path, 8u << 20);
  if (!spec.err_path.empty()) r.err = file_head(spec.err_path, 8u << 20);
}

}  // namespace process_detail

std::string signal_text(int sig) {
  struct Known {
    int sig;
    const char* text;
  };
  static const Known known[] = {
    {SIGSEGV, "SIGSEGV (segmentation fault: an access outside the process's memory)"},
    {SIGILL, "SIGILL (illegal instruction; __builtin_trap() compiles to one)"},
    {SIGFPE, "SIGFPE (arithmetic exception, such as an integer division by zero)"},
    {SIGABRT, "SIGABRT (abort: an assertion failed, or the driver gave up)"},
    {SIGINT, "SIGINT (interrupt)"},
    {SIGTERM, "SIGTERM (terminated)"},
#ifdef SIGBUS
    {SIGBUS, "SIGBUS (bus error: an access the memory cannot serve)"},
#endif
#ifdef SIGTRAP
    {SIGTRAP, "SIGTRAP (trace trap)"},
#endif
#ifdef SIGKILL
    {SIGKILL, "SIGKILL (killed, perhaps for using too much memory)"},
#endif
#ifdef SIGSYS
    {SIGSYS, "SIGSYS (bad system call)"},
#endif
#ifdef SIGXCPU
    {SIGXCPU, "SIGXCPU (over its CPU time limit)"},
#endif
#ifdef SIGXFSZ
    {SIGXFSZ, "SIGXFSZ (over its file size limit)"},
#endif
#ifdef SIGHUP
    {SIGHUP, "SIGHUP (hangup)"},
#endif
#ifdef SIGPIPE
    {SIGPIPE, "SIGPIPE (broken pipe)"},
#endif
  };
  for (const Known& k : known)
    if (k.sig == sig) return k.text;
  return process_detail::other_signal_text(sig);
}

bool signal_from_outside(int sig) {
  return sig == SIGINT || sig == SIGTERM
#ifdef SIGHUP
         || sig == SIGHUP
#endif
#ifdef SIGPIPE
         || sig == SIGPIPE
#endif
      ;
}

}  // namespace conv
