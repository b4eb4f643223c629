// A time limit on work that may never return. OpenCL cannot cancel a
// running kernel, so a kernel that loops forever (a student's --kernel)
// would hang the program for good: when the limit passes, the watchdog
// prints one line and ends the process with exit status 1.
#pragma once
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>

namespace conv {

class Watchdog {
 public:
  // Off when `seconds` is 0. `message` is the line printed, after
  // "PROGRAM: ", when time runs out.
  Watchdog(const std::string& program, double seconds, const std::string& message);
  ~Watchdog();  // disarms it
  Watchdog(const Watchdog&) = delete;
  Watchdog& operator=(const Watchdog&) = delete;

 private:
  std::mutex mutex_;
  std::condition_variable done_;
  bool finished_ = false;
  std::thread thread_;
};

}  // namespace conv
