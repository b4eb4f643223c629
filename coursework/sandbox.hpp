// The sandbox a case runs in (docs/coursework.md, "The sandbox"): on a CPU
// device a student's kernel is native code inside the case's process, so
// the process gets bubblewrap's namespaces (its own PIDs, no network, a
// read-only view of the system and one writable folder), an unprivileged
// user when the grader is root, and limits on memory, processes, file size
// and CPU time.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "common/machinery/platform/process.hpp"

namespace conv::grade {

struct Sandbox {
  bool enabled = true;    // false with --no-sandbox: the limits only
  std::string bwrap;      // bubblewrap's path
  bool drop_to_nobody = false;  // the grader runs as root
  std::string runner;     // the case runner, a copy readable by the sandbox's user
  std::string inputs;     // the folder of the cases' inputs, seen read-only
  Env env;                // the device's variables (CLCONV_PLATFORM, ...)
  // The device the grader was asked for. On a GPU a case's process gets no
  // address-space limit: a CUDA-based OpenCL driver reserves far more
  // address space than it uses (NVIDIA's needs more than 50 GB of it, and
  // under less its platform is not listed at all), so there the summed
  // resident memory of the case's processes (case_memory_cap) bounds it.
  bool gpu = false;
  std::string device_name;  // probe_sandbox checks that a case sees this device
};

// Where the sandbox sees the runner, the inputs and the writable folder.
constexpr const char* kRunnerInside = "/grade/grade-case";
constexpr const char* kInputsInside = "/grade/inputs";
constexpr const char* kWorkInside = "/work";

// bubblewrap's path: $CLCONV_BWRAP if set (a test names a missing one), else
// bwrap on the PATH; "" when there is none.
std::string find_bwrap();

// "" when the bubblewrap at `bwrap` has every option the sandbox uses
// (--disable-userns, --size, --remount-ro: bubblewrap 0.8.0 and later),
// else the first one it lacks, in one line; read from `bwrap --help`.
std::string bwrap_lacks(const std::string& bwrap);

// A case's command: `args` for the runner, the runner seeing `work` (a
// folder the grader made for this submission) as kWorkInside, writable, and
// the inputs read-only; args name them as the runner sees them (inside(),
// below). Without the sandbox the runner runs directly on the real paths.
// `wrapper`, when given, is the program (and its arguments) that starts the
// runner there: Oclgrind, for the rerun of a crashed case. The case's caps
// (case_caps.hpp) are set: kCaseDiskBytes on `work`, case_memory_cap() on
// its processes together, kCaseThreads.
ChildSpec sandboxed(const Sandbox& box, const std::string& work, const std::vector<std::string>& args,
                    double timeout_s, const std::vector<std::string>& wrapper = {});

// RLIMIT_NPROC for a case's processes (ChildSpec::processes): an allowance
// of kProcessAllowance plus 64 per core, all of it for uid 65534 when the
// grader is root (the cases at once share it), else on top of the tasks the
// grader's user runs when the case starts. A fork or thread bomb stops there
// (fork and pthread_create fail with EAGAIN); the threads cap below kills it.
constexpr std::uint64_t kProcessAllowance = 1024;
std::uint64_t process_limit(const Sandbox& box);

// The per-case caps.
constexpr std::uint64_t kCaseDiskBytes = std::uint64_t{1} << 30;
constexpr int kCaseThreads = 512;
std::uint64_t case_memory_cap();

// How the runner sees `path`, a file under the work folder `work` or the
// inputs folder.
std::string inside(const Sandbox& box, const std::string& work, const std::string& path);

// Starts the runner in the sandbox once (`grade-case --probe`, which opens
// the device the variables in box.env choose and prints its name); "" when
// it works and the device is box.device_name, else why not, in one line.
std::string probe_sandbox(const Sandbox& box, const std::string& scratch);

// The folder `work` made ready for the sandbox's user: owned by uid 65534
// when the grader is root.
void hand_over(const Sandbox& box, const std::string& work);

}  // namespace conv::grade
