// A time limit on work that may never return. OpenCL cannot cancel a
// running kernel, so a kernel that loops forever (a student's --kernel)
// would hang the program for good: when the limit passes, the watchdog
// prints one line and ends the process with exit status 1. The line says
// whether the time ran out while a kernel was being built (a compiler that
// does not finish, an #include of a FIFO) or while it ran (KernelPhase,
// common/machinery/supervisor.hpp).
#pragma once
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>

namespace conv {

class Watchdog {
 public:
  // Off when `seconds` is 0. `message` is the line printed, after
  // "PROGRAM: ", when time runs out; `build_message`, when it is not
  // empty, instead of it if a program was being built at that moment.
  Watchdog(const std::string& program, double seconds, const std::string& message,
           const std::string& build_message = "");
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
