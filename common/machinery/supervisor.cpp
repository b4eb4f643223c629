#include "common/machinery/supervisor.hpp"

#include <atomic>
#include <csignal>

#include "common/core/errors.hpp"
#include "common/machinery/cli.hpp"
#include "common/machinery/platform/process.hpp"

namespace conv {
namespace {

// The phase lives here, or, during a supervised run, in a page shared with
// the child, so that the parent can read what the child was doing when it
// died.
std::atomic<int> local_phase{0};
std::atomic<int>* phase = &local_phase;

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

}  // namespace

KernelPhase current_phase() { return static_cast<KernelPhase>(phase->load()); }

PhaseScope::PhaseScope(KernelPhase p) : previous_(current_phase()) { phase->store(static_cast<int>(p)); }
PhaseScope::~PhaseScope() { phase->store(static_cast<int>(previous_)); }

int run_supervised(const std::string& program, const std::string& kernel_label,
                   const std::function<int()>& body) {
  if (kernel_label.empty() || !child_processes_available()) return body();
  SharedInt page(local_phase.load());
  if (!page.shared()) return body();  // no supervision rather than no run
  ChildSpec spec;
  spec.body = [&] { return guarded_main(program, body); };
  spec.hold_err = true;
  spec.own_group = false;  // a terminal's Ctrl-C reaches the child too
  ChildResult r;
  phase = &page.value();
  try {
    r = run_child(spec);
  } catch (const Error&) {
    phase = &local_phase;
    return body();
  }
  const int last_phase = phase->load();
  phase = &local_phase;

  if (r.status >= 0) {
    write_stderr(r.err);
    return r.status;
  }
  if (r.signal == 0) {
    write_stderr(r.err);
    return 1;
  }
  const int sig = r.signal;
  if (signal_from_outside(sig)) {
    write_stderr(r.err);
    std::signal(sig, SIG_DFL);
    std::raise(sig);
    return 128 + sig;
  }
  if (r.err_passed_on) write_stderr(r.err);
  const std::string said = r.err_passed_on ? "" : last_line(r.err);
  write_stderr(program + ": the kernel in " + kernel_label + " ended the process: " + signal_text(sig) +
               phase_text(last_phase) + (said.empty() ? "" : "; its last line on stderr: \"" + said + "\"") + "\n");
  return 128 + sig;
}

}  // namespace conv
