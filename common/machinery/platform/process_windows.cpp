// The child-process runner on Windows (process.hpp). There is no fork():
// a body runs in this process, with this process's environment and
// streams, and without a time limit or checks (the supervisor asks
// child_processes_available() first and does this itself). A program runs
// through CreateProcess, in a job object that stands in for a process
// group: a timeout, a cap, done_early and kill_all_children() end the whole
// job, and the job ends when this process does (JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE).
// Resource limits, drop_to_nobody and hold_err are not available here and
// are ignored; a program's stderr goes to err_path or stays this process's.
#include "common/machinery/platform/process.hpp"

#ifndef NOMINMAX
#define NOMINMAX
#endif
#include <windows.h>

#include <io.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <set>

#include "common/core/errors.hpp"
#include "common/machinery/platform/process_shared.hpp"

namespace conv {

namespace {

std::mutex live_mutex;
std::set<HANDLE> live;  // the jobs of the children running now
bool stopping = false;

// One argument as the C runtime's command-line parser reads it back.
std::string quoted(const std::string& arg) {
  if (!arg.empty() && arg.find_first_of(" \t\n\v\"") == std::string::npos) return arg;
  std::string q = "\"";
  std::size_t backslashes = 0;
  for (char c : arg) {
    if (c == '\\') {
      ++backslashes;
      continue;
    }
    q.append(c == '"' ? 2 * backslashes + 1 : backslashes, '\\');
    backslashes = 0;
    q += c;
  }
  q.append(2 * backslashes, '\\');
  return q + "\"";
}

// This process's environment with the spec's changes, as CreateProcess
// takes it: NAME=VALUE strings, each ended by a NUL, then one more NUL.
std::string environment_block(const ChildSpec& spec) {
  std::string block;
  char* strings = ::GetEnvironmentStringsA();
  for (const char* e = strings; e && *e; e += std::strlen(e) + 1) {
    const std::string entry = e;
    const std::string name = entry.substr(0, entry.find('=', 1));  // "=C:=C:\..." entries keep their '='
    auto same = [&](const std::string& other) { return _stricmp(other.c_str(), name.c_str()) == 0; };
    const bool replaced =
        std::any_of(spec.env.begin(), spec.env.end(), [&](const auto& kv) { return same(kv.first); }) ||
        std::any_of(spec.unset.begin(), spec.unset.end(), same);
    if (!replaced) block += entry + '\0';
  }
  if (strings) ::FreeEnvironmentStringsA(strings);
  for (const auto& [name, value] : spec.env) block += name + "=" + value + '\0';
  return block + '\0';
}

HANDLE open_for_child(const std::string& path, bool write) {
  SECURITY_ATTRIBUTES inherit{sizeof(SECURITY_ATTRIBUTES), nullptr, TRUE};
  return ::CreateFileA(path.c_str(), write ? GENERIC_WRITE : GENERIC_READ, FILE_SHARE_READ | FILE_SHARE_WRITE,
                       &inherit, write ? CREATE_ALWAYS : OPEN_EXISTING, FILE_ATTRIBUTE_NORMAL, nullptr);
}

// A crash's exception code as the signal a POSIX system would name; 0 for
// any other exit code.
int signal_of(DWORD code) {
  switch (code) {
    case EXCEPTION_ACCESS_VIOLATION:
    case EXCEPTION_STACK_OVERFLOW:
    case EXCEPTION_ARRAY_BOUNDS_EXCEEDED:
      return SIGSEGV;
    case EXCEPTION_ILLEGAL_INSTRUCTION:
    case EXCEPTION_PRIV_INSTRUCTION:
      return SIGILL;
    case EXCEPTION_INT_DIVIDE_BY_ZERO:
    case EXCEPTION_FLT_DIVIDE_BY_ZERO:
      return SIGFPE;
    default:
      return 0;
  }
}

}  // namespace

ChildResult run_child(const ChildSpec& spec) {
  ChildResult r;
  const auto start = std::chrono::steady_clock::now();
  if (spec.argv.empty()) {
    if (!spec.body) throw Error("run_child: neither a program nor a function to run");
    r.status = spec.body();
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return r;
  }
  std::string command;
  for (const auto& a : spec.argv) command += (command.empty() ? "" : " ") + quoted(a);
  std::string env = environment_block(spec);

  HANDLE in = ::CreateFileA("NUL", GENERIC_READ, FILE_SHARE_READ | FILE_SHARE_WRITE, nullptr, OPEN_EXISTING, 0,
                            nullptr);
  HANDLE out = spec.out_path.empty() ? ::GetStdHandle(STD_OUTPUT_HANDLE) : open_for_child(spec.out_path, true);
  HANDLE err = spec.err_path.empty() ? ::GetStdHandle(STD_ERROR_HANDLE) : open_for_child(spec.err_path, true);
  auto close_files = [&] {
    if (in != INVALID_HANDLE_VALUE) ::CloseHandle(in);
    if (!spec.out_path.empty() && out != INVALID_HANDLE_VALUE) ::CloseHandle(out);
    if (!spec.err_path.empty() && err != INVALID_HANDLE_VALUE) ::CloseHandle(err);
  };
  if (out == INVALID_HANDLE_VALUE || err == INVALID_HANDLE_VALUE) {
    close_files();
    throw Error(spec.argv[0] + ": cannot start it (its output files)");
  }
  if (in != INVALID_HANDLE_VALUE) ::SetHandleInformation(in, HANDLE_FLAG_INHERIT, HANDLE_FLAG_INHERIT);
  ::SetHandleInformation(out, HANDLE_FLAG_INHERIT, HANDLE_FLAG_INHERIT);
  ::SetHandleInformation(err, HANDLE_FLAG_INHERIT, HANDLE_FLAG_INHERIT);

  STARTUPINFOA si{};
  si.cb = sizeof si;
  si.dwFlags = STARTF_USESTDHANDLES;
  si.hStdInput = in;
  si.hStdOutput = out;
  si.hStdError = err;
  PROCESS_INFORMATION pi{};
  HANDLE job = ::CreateJobObjectA(nullptr, nullptr);
  JOBOBJECT_EXTENDED_LIMIT_INFORMATION limits{};
  limits.BasicLimitInformation.LimitFlags = JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE;
  if (job) ::SetInformationJobObject(job, JobObjectExtendedLimitInformation, &limits, sizeof limits);
  {
    std::lock_guard<std::mutex> lock(live_mutex);
    const bool started =
        !stopping && job && ::CreateProcessA(nullptr, command.data(), nullptr, nullptr, TRUE,
                                             CREATE_SUSPENDED | CREATE_NEW_PROCESS_GROUP, env.data(), nullptr, &si, &pi);
    close_files();
    if (!started) {
      if (job) ::CloseHandle(job);
      throw Error(spec.argv[0] + (stopping ? ": child processes were stopped" : ": cannot run it"));
    }
    ::AssignProcessToJobObject(job, pi.hProcess);
    ::ResumeThread(pi.hThread);
    ::CloseHandle(pi.hThread);
    live.insert(job);
  }

  process_detail::watch(
      spec, static_cast<ProcessId>(pi.dwProcessId), start, r,
      [&] { return ::WaitForSingleObject(pi.hProcess, 20) == WAIT_OBJECT_0; },
      [&] {
        ::TerminateJobObject(job, 1);
        ::WaitForSingleObject(pi.hProcess, INFINITE);
      });
  ::TerminateJobObject(job, 1);  // whatever the child left behind in its job
  {
    std::lock_guard<std::mutex> lock(live_mutex);
    live.erase(job);
  }
  DWORD code = 1;
  ::GetExitCodeProcess(pi.hProcess, &code);
  ::CloseHandle(pi.hProcess);
  ::CloseHandle(job);
  if (!r.timed_out && !r.ended_early && r.over_cap.empty()) {
    r.signal = signal_of(code);
    if (!r.signal) r.status = static_cast<int>(code);
  }
  process_detail::finish(spec, start, r);
  return r;
}

void kill_all_children() {
  std::lock_guard<std::mutex> lock(live_mutex);
  stopping = true;
  for (HANDLE job : live) ::TerminateJobObject(job, 1);
}

bool child_processes_available() { return false; }

std::string process_detail::other_signal_text(int sig) { return "signal " + std::to_string(sig); }

void write_stderr(const std::string& text) {
  HANDLE err = ::GetStdHandle(STD_ERROR_HANDLE);
  std::size_t done = 0;
  while (done < text.size()) {
    DWORD n = 0;
    const DWORD want = static_cast<DWORD>(std::min<std::size_t>(text.size() - done, 1u << 20));
    if (!::WriteFile(err, text.data() + done, want, &n, nullptr) || n == 0) return;
    done += n;
  }
}

void exit_now(int status, const std::string& line) {
  write_stderr(line);
  ::TerminateProcess(::GetCurrentProcess(), static_cast<UINT>(status));
  std::_Exit(status);
}

SharedInt::SharedInt(int initial) : value_(new std::atomic<int>(initial)) {}

SharedInt::~SharedInt() { delete value_; }

}  // namespace conv
