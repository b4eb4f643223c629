// What the two implementations of the runner (process_posix.cpp,
// process_windows.cpp) share; defined in process.cpp. Not for other files.
#pragma once
#include <chrono>
#include <cstddef>
#include <functional>
#include <string>

#include "common/machinery/platform/process.hpp"

namespace conv::process_detail {

// The first `limit` bytes of a file ("" when it cannot be read).
std::string file_head(const std::string& path, std::size_t limit);

// Watches a running child until it ends. `ended()` says whether it has
// ended, waiting up to about 20 ms for that; `kill()` ends it (with its
// process group or job) and waits for it. Over its time limit, over a cap
// or done early, the child is killed and `r` says why (timed_out, over_cap,
// ended_early).
void watch(const ChildSpec& spec, ProcessId pid, std::chrono::steady_clock::time_point start, ChildResult& r,
           const std::function<bool()>& ended, const std::function<void()>& kill);

// The output files into `r` (their first 8 MiB), and the wall time.
void finish(const ChildSpec& spec, std::chrono::steady_clock::time_point start, ChildResult& r);

// signal_text() for a signal it has no words of its own for: the system's
// name and description ("SIGUSR1 (User defined signal 1)"), else
// "signal N".
std::string other_signal_text(int sig);

}  // namespace conv::process_detail
