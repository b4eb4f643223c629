// A --kernel run in a process of its own. On a CPU device (PoCL) a kernel
// is compiled to native code and runs inside the program, so a student's
// kernel can end it by a signal: a write gigabytes past a buffer
// (SIGSEGV), __builtin_trap() (SIGILL), a private array larger than a
// worker thread's stack (SIGSEGV), an assertion inside the driver
// (SIGABRT). No handler inside the process can report all of these: a
// stack overflow leaves no stack to run it on, and it happens on one of
// PoCL's threads. So the run is done in a child process (the one runner,
// common/machinery/platform/process.hpp), and the parent, which opens no
// device, turns a fatal signal into one line.
#pragma once
#include <functional>
#include <string>

#include "common/core/run_step.hpp"  // KernelPhase, PhaseScope: defined here

namespace conv {

// Without a kernel file (`kernel_label` empty), returns body(). With one,
// runs guarded_main(program, body) in a child process and never returns
// there; the parent waits and returns the child's exit status. The child's
// standard error is held back until it ends (up to 1 MiB, then passed on
// as it comes): when a signal ended it, the parent prints, instead, the one
// line
//   PROGRAM: the kernel in LABEL ended the process: SIGSEGV (segmentation
//   fault) while running on the device[; its last line on stderr: "..."]
// and returns 128 + the signal's number, as a shell reports a signal
// (139 for SIGSEGV). SIGINT, SIGTERM, SIGHUP and SIGPIPE are not the
// kernel's doing: the parent ends by the same signal, as the child did.
// The child ends when the parent does. Where no child process can be
// started (fork fails; Windows), body() runs in this process instead.
int run_supervised(const std::string& program, const std::string& kernel_label,
                   const std::function<int()>& body);

}  // namespace conv
