#include "common/watchdog.hpp"

#include <unistd.h>

#include <chrono>

namespace conv {

Watchdog::Watchdog(const std::string& program, double seconds, const std::string& message) {
  if (seconds <= 0) return;
  const std::string line = program + ": " + message + "\n";
  thread_ = std::thread([this, seconds, line] {
    std::unique_lock<std::mutex> lock(mutex_);
    if (done_.wait_for(lock, std::chrono::duration<double>(seconds), [this] { return finished_; }))
      return;
    // Other threads may be inside the OpenCL driver: no exit handlers, no
    // destructors, only write() and _exit().
    [[maybe_unused]] const ssize_t n = ::write(2, line.data(), line.size());
    ::_exit(1);
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
