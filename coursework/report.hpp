// The grader's report: CSV for the gradebook, a Markdown table for reading.
#pragma once
#include <ostream>
#include <string>
#include <vector>

#include "coursework/grading.hpp"

namespace conv::grade {

// student,step,verdict,cases_passed,cases_total,reason,seconds,sandbox; the
// last column is "bwrap", or "none" for a class graded with --no-sandbox.
std::string grades_csv(const std::string& step_name, const std::vector<Grade>& grades, bool sandboxed = true);

void print_markdown(std::ostream& out, const std::string& title, const std::string& step_name,
                    const std::vector<Grade>& grades);

// One line for standard error while grading: "[3/12] alice: wrong, 2/7 cases, 14.1 s".
std::string progress_line(const Grade& g, int done, int total);

}  // namespace conv::grade
