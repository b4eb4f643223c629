#include "common/machinery/watchdog.hpp"

#include <chrono>

#include "common/machinery/platform/process.hpp"
#include "common/machinery/supervisor.hpp"

namespace conv {

Watchdog::Watchdog(const std::string& program, double seconds, const std::string& message,
                   const std::string& build_message) {
  if (seconds <= 0) return;
  const std::string run_line = program + ": " + message + "\n";
  const std::string build_line = build_message.empty() ? run_line : program + ": " + build_message + "\n";
  thread_ = std::thread([this, seconds, run_line, build_line] {
    std::unique_lock<std::mutex> lock(mutex_);
    if (done_.wait_for(lock, std::chrono::duration<double>(seconds), [this] { return finished_; }))
      return;
    const std::string& line = current_phase() == KernelPhase::building ? build_line : run_line;
    // Other threads may be inside the OpenCL driver: no exit handlers, no
    // destructors, no locks.
    exit_now(1, line);
  });
}

Watchdog::~Watchdog() {
  if (!thread_.joinable()) return;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    finished_ = true;
  }
  done_.notify_one();
  thread_.join();
}

}  // namespace conv
