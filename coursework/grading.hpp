// Grading a class: the step's conformance cases for every submission, each
// case run by the case runner in a sandbox with a time limit; the grader
// writes the inputs and checks the outputs itself. The limits are
// calibrated on the step's own kernel.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "common/machinery/platform/process.hpp"
#include "coursework/case_run.hpp"
#include "coursework/sandbox.hpp"
#include "coursework/submissions.hpp"

namespace conv::grade {

// The default time limit of a case: this many times what the step's own
// kernel took on it, and never less than kMinCaseLimit seconds.
constexpr double kLimitMultiple = 5;
constexpr double kMinCaseLimit = 10;
// How long Oclgrind may look at a crashed case for its first report.
constexpr double kOclgrindLimit = 120;

struct Setup {
  std::shared_ptr<Step> step;
  std::string step_name;    // "step3-local"
  std::string variable;     // "CLCONV_KERNEL_STEP3"
  std::string conformance;  // the suite's binary, for the Oclgrind command
  std::vector<Case> cases;  // in the suite's order
  std::vector<double> limits;      // seconds, per case
  std::vector<double> reference_s; // what the step's own kernel took (calibrated runs)
  Env device_env;           // CLCONV_PLATFORM and the like
  std::uint32_t seed = 0;   // every student meets the same data
  std::string oclgrind;     // "" when not installed or not wanted
  bool oclgrind_wanted = true;
  std::string scratch;      // a private temporary folder
  Sandbox sandbox;
};

struct Grade {
  std::string student, path;
  Verdict verdict = Verdict::pass;
  std::string reason;
  int cases_passed = 0, cases_total = 0;
  double seconds = 0;
};

// Draws the cases from the seed and writes their inputs under the scratch
// folder, where the sandbox reads them.
void prepare_cases(Setup& setup);

// Runs the step's own kernel through every case, `jobs` at a time (the
// load grading will see), through the same route a submission takes, and
// sets the limits. Throws Error when the step's own kernel fails a case:
// grading on that device would blame the students for it.
void calibrate(Setup& setup, int jobs);

Grade grade_submission(const Setup& setup, const Submission& submission, int index);

// Grades all, `jobs` at a time; `done` is called (under a lock) as each ends.
std::vector<Grade> grade_all(const Setup& setup, const std::vector<Submission>& submissions,
                             int jobs, const std::function<void(const Grade&)>& done);

}  // namespace conv::grade
