// Grading a class: the step's conformance cases for every submission, each
// case run by the case runner in a sandbox with a time limit; the grader
// writes the inputs and checks the outputs itself. The limits are
// calibrated on the step's own kernel.
#pragma once
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
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

// Speed grading (grade --speed): a submission that passes every case is
// timed against a reference kernel (the previous step's, or the one
// --speed-reference names) on one larger problem, the speed case, in the
// same sandbox on the same device: kSpeedRuns runs of each kernel,
// interleaved (reference, submission, reference, ...), each run a fresh
// case runner that launches the kernel once (checked) and kSpeedLaunches
// more times (each timed by OpenCL's profiling events, each result checked
// against the first). A kernel's time is the median over its runs of each
// run's median; the noise is the spread (max - min) of a kernel's run
// medians over their median, the larger of the two kernels'. The verdict is
// `slow` when the submission's time over the reference's exceeds
// 1 + margin + noise.
constexpr double kSpeedMargin = 0.10;
constexpr int kSpeedRuns = 5;
constexpr int kSpeedLaunches = 10;

// While a kernel is timed nothing else of the grader runs: timing takes the
// gate alone, a case shares it (--jobs); a waiting timer goes first.
class TimingGate {
 public:
  void enter_shared();
  void leave_shared();
  void enter_alone();
  void leave_alone();

 private:
  std::mutex m_;
  std::condition_variable cv_;
  int shared_ = 0, alone_waiting_ = 0;
  bool alone_ = false;
};

struct Speed {
  bool enabled = false;
  std::shared_ptr<Step> reference;  // the reference kernel's step
  std::string reference_name;       // "step2-constant"
  std::string reference_source;     // its own kernel, as a file for the runner
  Case speed_case;                  // one run: the speed problem, each step's default work-group
  double margin = kSpeedMargin;
  int runs = kSpeedRuns, launches = kSpeedLaunches;
  std::shared_ptr<TimingGate> gate = std::make_shared<TimingGate>();
};

// What timing one kernel against the reference found.
struct SpeedMeasure {
  bool ok = true;       // false: the submission's timing run did not pass
  CaseOutcome failed;   // then: its verdict (wrong, crash, build-error) and why
  bool timed_out = false;  // a timing run outlived its limit (then ok is false, failed holds why)
  double kernel_ms = 0, reference_ms = 0, ratio = 0, noise = 0;
  std::vector<double> kernel_runs, reference_runs;  // each run's median, in ms
  double seconds = 0;   // wall time of every run
};

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
  Speed speed;              // --speed
};

struct Grade {
  std::string student, path;
  Verdict verdict = Verdict::pass;
  std::string reason;
  int cases_passed = 0, cases_total = 0;
  double seconds = 0;
  // With --speed, for a submission that passed every case: its kernel's
  // time and the reference's on the speed case (ms), their ratio, and the
  // noise measured; -1 when not timed.
  double kernel_ms = -1, reference_ms = -1, speed_ratio = -1, speed_noise = -1;
};

// Draws the cases from the seed and writes their inputs under the scratch
// folder, where the sandbox reads them.
void prepare_cases(Setup& setup);

// Runs the step's own kernel through every case, `jobs` at a time (the
// load grading will see), through the same route a submission takes, and
// sets the limits. Throws Error when the step's own kernel fails a case:
// grading on that device would blame the students for it.
void calibrate(Setup& setup, int jobs);

// The speed case (--speed-size, --speed-filter) written under the inputs
// folder, and the reference's kernel read from its step.
void prepare_speed(Setup& setup, int width, int height, const std::string& filter_spec);

// The step whose kernel --speed compares with by default: the previous
// gradable step, or the step itself for the first one.
std::string default_speed_reference(const std::string& step_name);

// Times the kernel `source` (the graded step's, named `label` in messages)
// against the reference, in folders named after `tag`.
SpeedMeasure measure_speed(const Setup& setup, const std::string& source, const std::string& label,
                           const std::string& tag);

// True when `m` is slow under `margin`; reason() says why, in words.
bool is_slow(const SpeedMeasure& m, double margin);
std::string speed_reason(const Setup& setup, const SpeedMeasure& m);

// Before grading with --speed: the step's own kernel timed against the
// reference, as a submission would be; one line for the instructor on how
// the two compare, which says so when the step's own kernel would itself be
// slow (an exercise may ask for more than the model answer does: step 1's
// signature at step 3's speed). Error when the step's own kernel fails the
// speed case, or the reference does.
std::string check_speed_reference(const Setup& setup);

Grade grade_submission(const Setup& setup, const Submission& submission, int index);

// Grades all, `jobs` at a time; `done` is called (under a lock) as each ends.
std::vector<Grade> grade_all(const Setup& setup, const std::vector<Submission>& submissions,
                             int jobs, const std::function<void(const Grade&)>& done);

}  // namespace conv::grade
