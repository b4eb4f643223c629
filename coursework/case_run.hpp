// One case run for one submission, and what it means. The case runner (in
// the sandbox) writes an output image per run of the case; the verdict
// comes from checking those images against the grader's own reference.
// The runner's exit status and what it printed are evidence only for a
// crash or a time-out, and for the reason of a case that did not pass.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "common/machinery/platform/process.hpp"
#include "coursework/cases.hpp"

namespace conv::grade {

enum class Verdict { pass, wrong, structure, build_error, crash, timeout, missing, unreadable, forbidden, not_graded,
                     slow };
std::string verdict_name(Verdict v);  // "build-error", ...

struct CaseOutcome {
  Verdict verdict = Verdict::pass;
  std::string reason;  // empty for a pass
  double seconds = 0;
};

// What the case tells of the kernel:
// - a time-out is `timeout`;
// - a case the grader killed for one of its caps (disk, memory, threads:
//   ChildResult::over_cap) is `crash`, the cap its reason;
// - the first run whose image is missing or fails its check decides: a
//   wrong image is `wrong`; no image, with the runner's build log is
//   `build-error`, with its note of a kernel fault `wrong`, else `crash`
//   when the process died or exited non-zero and `wrong` when it exited 0;
// - every image right but the process died or exited non-zero: `crash`;
// - else `pass`.
// `out_folder` holds the runner's files; `kernel_file` and `own_files` are
// the names the student's files have in compiler messages; `sandboxed`:
// the runner ran under bubblewrap, which reports a signal as 128 + N.
struct CaseContext {
  const Step* step = nullptr;
  const Case* test = nullptr;
  std::string kernel_file;
  std::vector<std::string> own_files;
  std::uint32_t seed = 0;
  double limit_s = 0;
  bool sandboxed = false;
};
CaseOutcome judge(const CaseContext& c, const ChildResult& run, const std::string& out_folder);

// The compiler's first error lines from a build log, with the driver's
// temporary file names replaced by `kernel_file`; diagnostics in files that
// are neither `kernel_file` nor one of `own_files` are left out.
std::string first_build_errors(const std::string& message, const std::string& kernel_file,
                               const std::vector<std::string>& own_files = {}, int lines = 3);

// A file the runner wrote in `folder` (no symbolic link followed, at most
// `limit` bytes); false when there is none.
bool read_runner_file(const std::string& folder, const std::string& name, std::size_t limit,
                      std::string& bytes);

}  // namespace conv::grade
