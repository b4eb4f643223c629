// One conformance case run for one submission, and what it means: the
// suite's own test binary runs the case and reports in Catch's XML; this
// turns that report, the exit status and any signal into a verdict and a
// reason a student can act on.
#pragma once
#include <string>
#include <vector>

#include "coursework/child.hpp"

namespace conv::grade {

enum class Verdict { pass, wrong, structure, build_error, crash, timeout, missing, unreadable };
std::string verdict_name(Verdict v);  // "build-error", ...

// The first failure Catch's XML reporter wrote for a test case.
struct CatchReport {
  bool finished = false;  // an OverallResult was written
  bool success = false;
  enum class Failure { none, check, exception, fatal } failure = Failure::none;
  std::vector<std::string> info;  // the INFO() messages in scope at the failure
  std::string expression, expanded;  // a failed CHECK
  std::string message;               // an exception's what(), or the fatal signal
};
CatchReport parse_catch_xml(const std::string& xml);

struct CaseOutcome {
  Verdict verdict = Verdict::pass;
  std::string reason;  // empty for a pass
  double seconds = 0;
};

// What a child's run of `case_title` (e.g. "600x400 x every filter width")
// says about the kernel in `kernel_file` (its name is used in compiler
// messages). The time limit is only used in the message of a timeout.
CaseOutcome classify(const ChildResult& run, const std::string& case_title,
                     const std::string& kernel_file, double limit_s);

// The compiler's first error lines from a BuildError's message, with the
// driver's temporary file names replaced by `kernel_file`.
std::string first_build_errors(const std::string& message, const std::string& kernel_file,
                               int lines = 3);

}  // namespace conv::grade
