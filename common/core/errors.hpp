// Errors a person can act on. Everything the harness throws derives from
// std::runtime_error and carries a one-line message; main() prints it once.
#pragma once
#include <stdexcept>
#include <string>

namespace conv {

// Bad command line or option value: exit status 2.
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Anything else that stops a run (missing file, device limit, build failure):
// exit status 1.
struct Error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// A kernel that did not compile; what() holds the whole build log.
struct BuildError : Error {
  using Error::Error;
};

// What a kernel did wrong, found by the harness: a pixel never written, a
// NaN or an infinity, a write outside its buffer. Exit status 1, like Error;
// the tests report it as a failed case.
struct KernelFault : Error {
  using Error::Error;
};

// `text` with every control character written as an escape (\n, \t, \r,
// \xHH), so that a message quoting a file name or a value that holds one
// stays one line. guarded_main() prints every message through it.
std::string one_line(const std::string& text);

// "CL_OUT_OF_RESOURCES" for -5, and so on.
std::string cl_error_name(int code);

// The codes of a kernel that takes other arguments than its launcher sets
// (CL_INVALID_ARG_INDEX, _VALUE, _SIZE at clSetKernelArg, or
// CL_INVALID_KERNEL_ARGS at the launch): a --kernel file's own fault.
bool kernel_argument_error(int code);
// Its message: "FILE: its kernel does not take the arguments SETTER sets
// (CALL: CODE); compare its parameters with OWN".
std::string kernel_argument_text(const std::string& file, const std::string& setter, const std::string& call,
                                 int code, const std::string& own);

}  // namespace conv
