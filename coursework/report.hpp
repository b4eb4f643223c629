// The grader's report: CSV for the gradebook, a Markdown table for reading.
#pragma once
#include <ostream>
#include <string>
#include <vector>

#include "coursework/grading.hpp"

namespace conv::grade {

// student,step,verdict,cases_passed,cases_total,reason,seconds,sandbox,
// kernel_ms,reference_ms,speed_ratio,speed_noise: "sandbox" is "bwrap", or
// "none" for a class graded with --no-sandbox; the last four are empty
// unless the submission was timed (grade --speed); speed_noise is the
// spread of a kernel's run medians over their median, the larger of the
// two kernels' (0.043: 4.3 %).
std::string grades_csv(const std::string& step_name, const std::vector<Grade>& grades, bool sandboxed = true);

// The table; with `speed`, each submission's kernel time and its ratio to
// the reference's.
void print_markdown(std::ostream& out, const std::string& title, const std::string& step_name,
                    const std::vector<Grade>& grades, bool speed = false);

// The class ranked by kernel time on the speed case, fastest first: every
// timed submission (pass or slow), then how many were not timed.
void print_ranking(std::ostream& out, const std::string& reference_name, const std::vector<Grade>& grades);

// One line for standard error while grading: "[3/12] alice: wrong, 2/7 cases, 14.1 s".
std::string progress_line(const Grade& g, int done, int total);

// The lock file of a report: REPORT.lock beside what the report names (a
// symbolic link followed), or .grade-lock-HASH there when that name would be
// longer than a file name may be.
std::string report_lock_path(const std::string& report);

// Two graders writing one report: an advisory lock (flock) on
// report_lock_path(report), taken before any grading and held until the
// report is written, so that the second grader stops at once. The lock
// file holds the holder's process ID; a grader killed from outside leaves
// the file, but not the lock (the kernel drops it), and the next run takes
// it. The destructor removes the file while the lock is still held.
class ReportLock {
 public:
  // Error, in one line, when another process holds the lock: "another
  // grade (pid N) is writing REPORT ...", or when the lock file cannot be
  // made.
  explicit ReportLock(const std::string& report);
  ~ReportLock();
  ReportLock(const ReportLock&) = delete;
  ReportLock& operator=(const ReportLock&) = delete;
  const std::string& path() const { return path_; }

 private:
  int fd_ = -1;
  std::string path_;
};

}  // namespace conv::grade
