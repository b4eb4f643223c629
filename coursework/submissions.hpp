// A class's submissions: a folder holding one .cl file per student (the
// file's stem is the student's name) or one folder per student holding the
// step's file, or both.
#pragma once
#include <string>
#include <vector>

namespace conv::grade {

struct Submission {
  std::string student;
  std::string path;    // the kernel file; for a missing one, the student's folder
  std::string root;    // the student's folder; "" for a file in the class's folder
  std::string source;  // its text, when it could be read
  // Set when there is nothing to grade: "missing", "unreadable",
  // "forbidden" (a symbolic link) or "not-graded" (not a submission), and why.
  std::string problem_verdict, problem;
};

// Every submission in `folder`, sorted by student. In a student's folder the
// kernel is <step_name>.cl (the skeleton's name), else convolve.cl, else the
// only .cl file there. Every other entry gets a row too, "not-graded" with
// the reason (a README, walter.CL), except hidden ones (".git", ".DS_Store").
std::vector<Submission> find_submissions(const std::string& folder, const std::string& step_name);

}  // namespace conv::grade
