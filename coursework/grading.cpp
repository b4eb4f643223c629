#include "coursework/grading.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <sstream>
#include <thread>

#include "common/errors.hpp"
#include "coursework/oclgrind.hpp"
#include "coursework/structure.hpp"

namespace conv::grade {

namespace {

std::string seconds_text(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f s", s);
  return buf;
}

CaseCommand case_command(const Setup& setup, std::size_t i, const std::string& kernel_path) {
  CaseCommand c{setup.conformance, setup.cases[i], setup.device_env};
  c.env.push_back({setup.variable, kernel_path});
  c.env.push_back({"CLCONV_TEST_SEED", std::to_string(setup.seed)});
  return c;
}

// Runs case i on the kernel in `kernel_path`; `tag` keeps the output files
// of parallel runs apart.
ChildResult run_case(const Setup& setup, std::size_t i, const std::string& kernel_path,
                     const std::string& tag, double limit_s) {
  const CaseCommand c = case_command(setup, i, kernel_path);
  ChildSpec spec;
  // -a: stop at the first failed check, which is the one the reason quotes.
  spec.argv = {c.program, catch_test_spec(c.test), "-r", "xml", "-a"};
  spec.env = c.env;
  spec.timeout_s = limit_s;
  spec.out_path = setup.scratch + "/" + tag + ".stdout";
  spec.err_path = setup.scratch + "/" + tag + ".stderr";
  ChildResult r = run_child(spec);
  std::remove(spec.out_path.c_str());
  std::remove(spec.err_path.c_str());
  return r;
}

std::string file_name(const std::string& path) {
  return std::filesystem::path(path).filename().string();
}

// Runs `work(i)` for i in [0, n) on `jobs` threads.
void parallel_for(std::size_t n, int jobs, const std::function<void(std::size_t)>& work) {
  std::atomic<std::size_t> next{0};
  std::vector<std::thread> threads;
  std::mutex error_mutex;
  std::exception_ptr error;
  for (int t = 0; t < std::max(1, std::min<int>(jobs, static_cast<int>(n))); ++t)
    threads.emplace_back([&] {
      for (std::size_t i; (i = next++) < n;) {
        try {
          work(i);
        } catch (...) {
          std::lock_guard<std::mutex> lock(error_mutex);
          if (!error) error = std::current_exception();
          next = n;  // the grader itself failed: stop handing out work
        }
      }
    });
  for (auto& t : threads) t.join();
  if (error) std::rethrow_exception(error);
}

}  // namespace

std::string case_title(const Setup& setup, const std::string& test) {
  const std::string prefix = setup.step_name + ": ";
  return test.rfind(prefix, 0) == 0 ? test.substr(prefix.size()) : test;
}

std::vector<std::string> list_cases(const Setup& setup) {
  ChildSpec spec;
  spec.argv = {setup.conformance, "--list-test-names-only", "[" + setup.step_name + "]"};
  spec.timeout_s = 120;
  spec.out_path = setup.scratch + "/list.stdout";
  spec.err_path = setup.scratch + "/list.stderr";
  const ChildResult r = run_child(spec);
  std::vector<std::string> cases;
  std::istringstream in(r.out);
  for (std::string line; std::getline(in, line);)
    if (line.rfind(setup.step_name + ": ", 0) == 0) cases.push_back(line);
  if (cases.empty())
    throw Error(setup.conformance + " lists no cases for " + setup.step_name +
                " (exit status " + std::to_string(r.status) + ")");
  return cases;
}

void calibrate(Setup& setup, int jobs) {
  // The step's own kernel as a file, with a constant that makes the program
  // new to any compiler cache (PoCL's ignores comments): a submission is
  // compiled from scratch too.
  const std::string path = setup.scratch + "/" + setup.step_name + "-reference.cl";
  std::ofstream(path) << setup.reference_source << "\n__constant int clconv_grade_calibration = "
                      << setup.seed % 1000000007u << ";\n";
  if (const auto failed = check_structure(setup.step_name, setup.reference_source); !failed.empty())
    throw Error(setup.step_name + "'s own kernel fails its structural check " + failed.front());
  setup.reference_s.assign(setup.cases.size(), 0);
  setup.limits.assign(setup.cases.size(), 0);
  parallel_for(setup.cases.size(), jobs, [&](std::size_t i) {
    const ChildResult r = run_case(setup, i, path, "reference-" + std::to_string(i), 1800);
    const CaseOutcome o = classify(r, case_title(setup, setup.cases[i]), file_name(path), 1800);
    if (o.verdict != Verdict::pass)
      throw Error(setup.step_name + "'s own kernel does not pass its case on this device, so "
                  "no submission could: " + verdict_name(o.verdict) + ": " + o.reason);
    setup.reference_s[i] = r.seconds;
    setup.limits[i] = std::max(kMinCaseLimit, kLimitMultiple * r.seconds);
  });
}

Grade grade_submission(const Setup& setup, const Submission& s, int index) {
  Grade g;
  g.student = s.student;
  g.path = s.path;
  g.cases_total = static_cast<int>(setup.cases.size());
  if (!s.problem_verdict.empty()) {
    g.verdict = s.problem_verdict == "missing" ? Verdict::missing : Verdict::unreadable;
    g.reason = s.problem;
    return g;
  }
  const auto structural = check_structure(setup.step_name, s.source);
  const std::string kernel_file = file_name(s.path);
  CaseOutcome first;  // the first case that did not pass
  bool failed = false, oclgrind_tried = false;
  int failing = 0, not_run = 0;
  for (std::size_t i = 0; i < setup.cases.size(); ++i) {
    const ChildResult r = run_case(setup, i, s.path,
                                   "s" + std::to_string(index) + "-" + std::to_string(i),
                                   setup.limits[i]);
    g.seconds += r.seconds;
    CaseOutcome o = classify(r, case_title(setup, setup.cases[i]), kernel_file, setup.limits[i]);
    if (o.verdict == Verdict::pass) {
      ++g.cases_passed;
      continue;
    }
    ++failing;
    if (o.verdict == Verdict::timeout && !setup.reference_s.empty())
      o.reason += "; the step's own kernel took " + seconds_text(setup.reference_s[i]);
    if (o.verdict == Verdict::crash && !oclgrind_tried) {
      oclgrind_tried = true;
      const CaseCommand c = case_command(setup, i, s.path);
      if (!setup.oclgrind.empty()) {
        const std::string dir = setup.scratch + "/oclgrind-" + std::to_string(index);
        std::filesystem::create_directories(dir);
        const auto start = std::chrono::steady_clock::now();
        const std::string finding =
            first_oclgrind_finding(setup.oclgrind, c, dir, kernel_file, kOclgrindLimit);
        g.seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        o.reason += finding.empty() ? "; Oclgrind found nothing within " + seconds_text(kOclgrindLimit) +
                                          " (" + oclgrind_command(c) + ")"
                                    : "; Oclgrind: " + finding;
      } else if (setup.oclgrind_wanted) {
        o.reason += "; to see where (Oclgrind, Debian package oclgrind): " + oclgrind_command(c);
      } else {
        o.reason += "; to see where: " + oclgrind_command(c);
      }
    }
    if (!failed) first = o, failed = true;
    if (o.verdict == Verdict::timeout) {
      // A kernel that hung once will most likely hang in every case, and
      // each would cost its whole limit.
      not_run = static_cast<int>(setup.cases.size() - i - 1);
      break;
    }
  }
  std::string structure_note;
  for (const auto& f : structural) structure_note += (structure_note.empty() ? "" : "; ") + f;
  if (!failed) {
    if (structural.empty()) return g;
    g.verdict = Verdict::structure;
    g.reason = "structural check failed: " + structure_note + " (every case passes)";
    return g;
  }
  g.verdict = first.verdict;
  g.reason = first.reason;
  if (failing > 1) g.reason += "; " + std::to_string(failing - 1) + " more case(s) fail";
  if (not_run > 0) g.reason += "; " + std::to_string(not_run) + " later case(s) not run after the timeout";
  if (!structural.empty()) g.reason += "; structural check failed too: " + structure_note;
  return g;
}

std::vector<Grade> grade_all(const Setup& setup, const std::vector<Submission>& submissions,
                             int jobs, const std::function<void(const Grade&)>& done) {
  std::vector<Grade> grades(submissions.size());
  std::mutex progress;
  parallel_for(submissions.size(), jobs, [&](std::size_t i) {
    grades[i] = grade_submission(setup, submissions[i], static_cast<int>(i));
    std::lock_guard<std::mutex> lock(progress);
    done(grades[i]);
  });
  return grades;
}

}  // namespace conv::grade
