#include "coursework/grading.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <regex>
#include <thread>

#include "common/core/errors.hpp"
#include "coursework/case_caps.hpp"
#include "coursework/oclgrind.hpp"
#include "coursework/source_check.hpp"
#include "coursework/structure.hpp"

namespace fs = std::filesystem;

namespace conv::grade {

namespace {

std::string seconds_text(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f s", s);
  return buf;
}

std::string file_name(const std::string& path) { return fs::path(path).filename().string(); }

std::string case_inputs(const Setup& setup, std::size_t i) {
  return setup.sandbox.inputs + "/case-" + std::to_string(i);
}

// A folder for one submission's cases, the sandbox's to write in, holding
// the source it builds.
std::string make_work(const Setup& setup, const std::string& name, const std::string& source) {
  const std::string work = setup.scratch + "/" + name;
  fs::create_directories(work);
  fs::permissions(work, fs::perms::owner_all);
  std::ofstream(work + "/kernel.cl", std::ios::binary) << source;
  fs::permissions(work + "/kernel.cl", fs::perms::owner_read | fs::perms::owner_write |
                                           fs::perms::group_read | fs::perms::others_read);
  hand_over(setup.sandbox, work);
  return work;
}

// The runner's arguments for case i on the kernel in work/kernel.cl, named
// `label` in compiler messages; the runner writes into work/case-i.
std::vector<std::string> case_args(const Setup& setup, std::size_t i, const std::string& work,
                                   const std::string& label) {
  const Sandbox& box = setup.sandbox;
  const std::string out = work + "/case-" + std::to_string(i);
  remove_tree(out);  // what an earlier run left, if anything
  return {setup.step_name, inside(box, work, case_inputs(setup, i) + "/manifest"),
          inside(box, work, work + "/kernel.cl"), label, inside(box, work, out)};
}

ChildResult run_case(const Setup& setup, std::size_t i, const std::string& work, const std::string& label,
                     double limit_s) {
  ChildSpec spec = sandboxed(setup.sandbox, work, case_args(setup, i, work, label), limit_s);
  spec.out_path = work + ".stdout";
  spec.err_path = work + ".stderr";
  ChildResult r = run_child(spec);
  std::remove(spec.out_path.c_str());
  std::remove(spec.err_path.c_str());
  return r;
}

CaseContext context(const Setup& setup, std::size_t i, const std::string& kernel_file, double limit_s) {
  CaseContext c;
  c.step = setup.step.get();
  c.test = &setup.cases[i];
  c.kernel_file = kernel_file;
  c.seed = setup.seed;
  c.limit_s = limit_s;
  c.sandboxed = setup.sandbox.enabled;
  return c;
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

// The student's files as compiler messages name them: the #line names of
// the source the grader built.
std::vector<std::string> own_files(const std::string& source) {
  static const std::regex line_name(R"re(#line [0-9]+ "([^"]*)")re");
  std::vector<std::string> names;
  for (auto it = std::sregex_iterator(source.begin(), source.end(), line_name); it != std::sregex_iterator(); ++it)
    names.push_back((*it)[1].str());
  return names;
}

}  // namespace

void prepare_cases(Setup& setup) {
  setup.cases = make_cases(*setup.step, setup.seed);
  for (std::size_t i = 0; i < setup.cases.size(); ++i) {
    const std::string dir = case_inputs(setup, i);
    fs::create_directories(dir);
    write_case_inputs(setup.cases[i], dir);
  }
}

void calibrate(Setup& setup, int jobs) {
  // The step's own kernel, with a constant that makes the program new to
  // any compiler cache (PoCL's ignores comments): a submission is compiled
  // from scratch too.
  const std::string source = setup.step->embedded_source() +
                             "\n__constant int clconv_grade_calibration = " +
                             std::to_string(setup.seed % 1000000007u) + ";\n";
  if (const auto failed = check_structure(setup.step_name, source); !failed.empty())
    throw Error(setup.step_name + "'s own kernel fails its structural check " + failed.front());
  setup.reference_s.assign(setup.cases.size(), 0);
  setup.limits.assign(setup.cases.size(), 0);
  const std::string label = setup.step_name + ".cl";
  parallel_for(setup.cases.size(), jobs, [&](std::size_t i) {
    const std::string work = make_work(setup, "reference-" + std::to_string(i), source);
    const ChildResult r = run_case(setup, i, work, label, 1800);
    const CaseOutcome o = judge(context(setup, i, label, 1800), r, work + "/case-" + std::to_string(i));
    if (o.verdict != Verdict::pass)
      throw Error(setup.step_name + "'s own kernel does not pass its case on this device, so "
                  "no submission could: " + verdict_name(o.verdict) + ": " + o.reason +
                  (r.err.empty() ? "" : " (" + one_line(r.err.substr(0, 300)) + ")"));
    remove_tree(work);
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
    g.verdict = s.problem_verdict == "missing"     ? Verdict::missing
                : s.problem_verdict == "forbidden" ? Verdict::forbidden
                : s.problem_verdict == "not-graded" ? Verdict::not_graded
                                                    : Verdict::unreadable;
    g.reason = s.problem;
    return g;
  }
  // Nothing is built before its includes and its assembly are checked.
  const CheckedSource checked = check_source(s.path, s.root);
  if (!checked.problem.empty()) {
    g.verdict = Verdict::forbidden;
    g.reason = checked.problem;
    return g;
  }
  const auto structural = check_structure(setup.step_name, checked.source);
  const std::string kernel_file = file_name(s.path);
  const std::string work = make_work(setup, "s" + std::to_string(index), checked.source);
  CaseOutcome first;  // the first case that did not pass
  bool failed = false, oclgrind_tried = false;
  int failing = 0, not_run = 0;
  for (std::size_t i = 0; i < setup.cases.size(); ++i) {
    const ChildResult r = run_case(setup, i, work, kernel_file, setup.limits[i]);
    g.seconds += r.seconds;
    CaseContext c = context(setup, i, kernel_file, setup.limits[i]);
    c.own_files = own_files(checked.source);
    CaseOutcome o = judge(c, r, work + "/case-" + std::to_string(i));
    remove_tree(work + "/case-" + std::to_string(i));
    if (o.verdict == Verdict::pass) {
      ++g.cases_passed;
      continue;
    }
    ++failing;
    if (o.verdict == Verdict::timeout && !setup.reference_s.empty())
      o.reason += "; the step's own kernel took " + seconds_text(setup.reference_s[i]);
    if (o.verdict == Verdict::crash && !oclgrind_tried) {
      oclgrind_tried = true;
      // Oclgrind interprets the kernel (no native code of the student's
      // runs): the case again, through the runner, in the same sandbox with
      // the same limits. Where it is not installed, the command that runs
      // the case through the suite's binary instead, for the instructor.
      CaseCommand command{setup.conformance, setup.step_name + ": " + setup.cases[i].title, setup.device_env};
      command.env.push_back({setup.variable, s.path});
      command.env.push_back({"CLCONV_TEST_SEED", std::to_string(setup.seed)});
      if (!setup.oclgrind.empty()) {
        const auto start = std::chrono::steady_clock::now();
        const std::string finding = first_oclgrind_finding_in_sandbox(
            setup.oclgrind, setup.sandbox, work, case_args(setup, i, work, kernel_file), kernel_file,
            kOclgrindLimit);
        remove_tree(work + "/case-" + std::to_string(i));
        g.seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        o.reason += finding.empty() ? "; Oclgrind found nothing within " + seconds_text(kOclgrindLimit) +
                                          " (" + oclgrind_command(command) + ")"
                                    : "; Oclgrind: " + finding;
      } else if (setup.oclgrind_wanted) {
        o.reason += "; to see where (Oclgrind, Debian package oclgrind): " + oclgrind_command(command);
      } else {
        o.reason += "; to see where: " + oclgrind_command(command);
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
  remove_tree(work);
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
