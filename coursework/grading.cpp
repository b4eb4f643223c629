#include "coursework/grading.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <random>
#include <regex>
#include <sstream>
#include <thread>

#include "common/core/timing.hpp"
#include "common/core/errors.hpp"
#include "common/machinery/random_inputs.hpp"
#include "common/machinery/registry.hpp"
#include "coursework/case_caps.hpp"
#include "coursework/oclgrind.hpp"
#include "coursework/source_check.hpp"
#include "coursework/structure.hpp"
#include "coursework/student_kernel.hpp"

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

// The timing gate for the life of a scope: shared by a case, alone for a
// kernel being timed.
struct Shared {
  TimingGate& gate;
  explicit Shared(TimingGate& g) : gate(g) { gate.enter_shared(); }
  ~Shared() { gate.leave_shared(); }
};
struct Alone {
  TimingGate& gate;
  explicit Alone(TimingGate& g) : gate(g) { gate.enter_alone(); }
  ~Alone() { gate.leave_alone(); }
};

ChildResult run_case(const Setup& setup, std::size_t i, const std::string& work, const std::string& label,
                     double limit_s) {
  ChildSpec spec = sandboxed(setup.sandbox, work, case_args(setup, i, work, label), limit_s);
  spec.out_path = work + ".stdout";
  spec.err_path = work + ".stderr";
  const Shared shared(*setup.speed.gate);
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

std::string speed_inputs(const Setup& setup) { return setup.sandbox.inputs + "/speed"; }

std::string ratio_text(double r) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2fx", r);
  return buf;
}

std::string percent_text(double f) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g %%", 100 * f);
  return buf;
}

std::string ms_text(double ms) {
  char buf[32];
  std::snprintf(buf, sizeof buf, ms < 10 ? "%.3f ms" : "%.1f ms", ms);
  return buf;
}

// One timing run of the kernel in work/kernel.cl with `step`'s launcher on
// the speed case, in the sandbox: the case runner's --time mode. Its
// outcome is judge()'s on the speed case's image (a wrong result, a crash,
// a time-out), and for a run that passes, the median of its launches'
// times, which the runner read from OpenCL's profiling events.
struct TimedRun {
  CaseOutcome outcome;
  bool timed_out = false;
  double median_ms = 0, seconds = 0;
};

TimedRun time_run(const Setup& setup, const Step& step, const std::string& work, const std::string& label,
                  double limit_s) {
  const Speed& speed = setup.speed;
  const Sandbox& box = setup.sandbox;
  const std::string out = work + "/speed-run";
  remove_tree(out);
  ChildSpec spec = sandboxed(box, work,
                             {"--time", std::to_string(speed.launches), step.name(),
                              inside(box, work, speed_inputs(setup) + "/manifest"),
                              inside(box, work, work + "/kernel.cl"), label, inside(box, work, out)},
                             limit_s);
  spec.out_path = work + ".stdout";
  spec.err_path = work + ".stderr";
  const ChildResult r = run_child(spec);
  std::remove(spec.out_path.c_str());
  std::remove(spec.err_path.c_str());
  CaseContext c;
  c.step = &step;
  c.test = &speed.speed_case;
  c.kernel_file = label;
  c.seed = setup.seed;
  c.limit_s = limit_s;
  c.sandboxed = box.enabled;
  TimedRun t;
  t.seconds = r.seconds;
  t.timed_out = r.timed_out;
  t.outcome = judge(c, r, out);
  if (t.outcome.verdict == Verdict::pass) {
    std::string bytes;
    std::vector<double> times;
    if (read_runner_file(out, times_file(out).substr(out.size() + 1), 1 << 20, bytes)) {
      std::istringstream lines(bytes);
      for (double ms; lines >> ms;)
        if (std::isfinite(ms) && ms > 0) times.push_back(ms);
    }
    if (times.size() != static_cast<std::size_t>(speed.launches)) {
      t.outcome.verdict = Verdict::crash;
      t.outcome.reason = "\"" + speed.speed_case.title + "\" ended without the times of its " +
                         std::to_string(speed.launches) + " launches";
    } else {
      t.median_ms = summarize(times).median_ms;
    }
  }
  remove_tree(out);
  return t;
}

}  // namespace

void TimingGate::enter_shared() {
  std::unique_lock<std::mutex> lock(m_);
  cv_.wait(lock, [&] { return !alone_ && alone_waiting_ == 0; });
  ++shared_;
}

void TimingGate::leave_shared() {
  std::lock_guard<std::mutex> lock(m_);
  --shared_;
  cv_.notify_all();
}

void TimingGate::enter_alone() {
  std::unique_lock<std::mutex> lock(m_);
  ++alone_waiting_;
  cv_.wait(lock, [&] { return !alone_ && shared_ == 0; });
  --alone_waiting_;
  alone_ = true;
}

void TimingGate::leave_alone() {
  std::lock_guard<std::mutex> lock(m_);
  alone_ = false;
  cv_.notify_all();
}

std::string default_speed_reference(const std::string& step_name) {
  std::string previous;
  for (const auto& step : all_steps()) {
    if (step->name() == step_name) return previous.empty() ? step_name : previous;
    if (!kernel_variable(step->name()).empty() && !step->embedded_source().empty() &&
        !suite_configurations(*step, true).empty())
      previous = step->name();
  }
  return step_name;
}

void prepare_speed(Setup& setup, int width, int height, const std::string& filter_spec) {
  Speed& speed = setup.speed;
  speed.reference_source = speed.reference->embedded_source();
  std::seed_seq seq{setup.seed, 0x5eedu};
  std::mt19937 rng(seq);
  Run run;
  run.config = 0;
  run.image = random_image(width, height, rng);
  run.filter = parse_filter_spec(filter_spec);
  run.border = Border::zero;
  run.wg_x = run.wg_y = 0;  // each step's own default
  // Checked after every timed run of both kernels: its reference is
  // computed here, once (at 4096x4096 and F = 31, a minute of serial sums).
  run.reference = std::make_shared<const Reference>(
      reference_correlate(make_problem(run.image, run.filter, run.border).padded, run.filter));
  speed.speed_case.title = "the speed case";
  speed.speed_case.runs = {run};
  fs::create_directories(speed_inputs(setup));
  write_case_inputs(speed.speed_case, speed_inputs(setup));
}

SpeedMeasure measure_speed(const Setup& setup, const std::string& source, const std::string& label,
                           const std::string& tag) {
  const Speed& speed = setup.speed;
  SpeedMeasure m;
  const std::string reference_work = make_work(setup, tag + "-speed-reference", speed.reference_source);
  const std::string work = make_work(setup, tag + "-speed", source);
  const std::string reference_label = speed.reference_name + ".cl";
  {
    const Alone alone(*speed.gate);  // nothing else of the grader runs meanwhile
    double reference_wall = 0;
    for (int r = 0; r < speed.runs; ++r) {
      const TimedRun ref = time_run(setup, *speed.reference, reference_work, reference_label, 600);
      m.seconds += ref.seconds;
      if (ref.outcome.verdict != Verdict::pass)
        throw Error("--speed: " + speed.reference_name + "'s own kernel fails the speed case on this device, so "
                    "no submission can be timed against it: " + verdict_name(ref.outcome.verdict) + ": " +
                    ref.outcome.reason);
      reference_wall = std::max(reference_wall, ref.seconds);
      m.reference_runs.push_back(ref.median_ms);
      const double limit = std::max(kMinCaseLimit, kLimitMultiple * reference_wall);
      const TimedRun sub = time_run(setup, *setup.step, work, label, limit);
      m.seconds += sub.seconds;
      if (sub.outcome.verdict != Verdict::pass) {
        m.ok = false;
        m.failed = sub.outcome;
        m.timed_out = sub.timed_out;
        m.failed.reason += "; " + speed.reference_name + "'s kernel's run took " + seconds_text(ref.seconds);
        break;
      }
      m.kernel_runs.push_back(sub.median_ms);
    }
  }
  remove_tree(work);
  remove_tree(reference_work);
  if (!m.ok) return m;
  m.kernel_ms = summarize(m.kernel_runs).median_ms;
  m.reference_ms = summarize(m.reference_runs).median_ms;
  m.ratio = m.kernel_ms / m.reference_ms;
  // The noise: how far one kernel's run medians spread on this machine now,
  // the larger of the two kernels' spreads (a run of identical kernels on a
  // loaded machine can find the reference's runs close together and the
  // other's not).
  const auto spread = [](const std::vector<double>& runs, double median) {
    const auto [low, high] = std::minmax_element(runs.begin(), runs.end());
    return (*high - *low) / median;
  };
  m.noise = std::max(spread(m.reference_runs, m.reference_ms), spread(m.kernel_runs, m.kernel_ms));
  return m;
}

bool is_slow(const SpeedMeasure& m, double margin) { return m.timed_out || (m.ok && m.ratio > 1 + margin + m.noise); }

std::string speed_reason(const Setup& setup, const SpeedMeasure& m) {
  const Speed& speed = setup.speed;
  const Run& run = speed.speed_case.runs.front();
  const std::string asks = "the exercise asks for at least as fast as " + speed.reference_name + "'s kernel (margin " +
                           percent_text(speed.margin);
  if (m.timed_out) return m.failed.reason + ": far slower than " + speed.reference_name + "'s kernel; " + asks + ")";
  return ratio_text(m.ratio) + " slower than " + speed.reference_name + "'s kernel: " + ms_text(m.kernel_ms) +
         " against " + ms_text(m.reference_ms) + " on the speed case (" + std::to_string(run.image.width) + "x" +
         std::to_string(run.image.height) + ", filter " + run.filter.name + ", each kernel at its step's own "
         "work-group; the median of " + std::to_string(speed.runs) + " runs of " + std::to_string(speed.launches) +
         " launches each, in turns with the reference's); " + asks + ", noise measured " + percent_text(m.noise) +
         ")";
}

std::string check_speed_reference(const Setup& setup) {
  const Speed& speed = setup.speed;
  if (speed.reference_name == setup.step_name)
    return "--speed: against " + setup.step_name + "'s own kernel";
  const SpeedMeasure m = measure_speed(setup, setup.step->embedded_source(), setup.step_name + ".cl", "own");
  if (!m.ok)
    throw Error("--speed: " + setup.step_name + "'s own kernel fails the speed case on this device: " +
                verdict_name(m.failed.verdict) + ": " + m.failed.reason);
  return "--speed: " + setup.step_name + "'s own kernel takes " + ratio_text(m.ratio) + " the time of " +
         speed.reference_name + "'s on the speed case (" + ms_text(m.kernel_ms) + " against " +
         ms_text(m.reference_ms) + ", noise measured " + percent_text(m.noise) + ")" +
         (is_slow(m, speed.margin) ? "; it would be graded slow itself: the exercise asks for more than " +
                                         setup.step_name + "'s own kernel does on this device"
                                   : "");
}

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
    if (structural.empty() && setup.speed.enabled) {
      // Only a submission that passes everything else is timed.
      const SpeedMeasure m = measure_speed(setup, checked.source, kernel_file, "s" + std::to_string(index));
      g.seconds += m.seconds;
      if (m.ok) {
        g.kernel_ms = m.kernel_ms;
        g.reference_ms = m.reference_ms;
        g.speed_ratio = m.ratio;
        g.speed_noise = m.noise;
      }
      if (is_slow(m, setup.speed.margin)) {
        g.verdict = Verdict::slow;
        g.reason = speed_reason(setup, m);
      } else if (!m.ok) {
        g.verdict = m.failed.verdict;
        g.reason = m.failed.reason + " (every other case passes)";
      }
      return g;
    }
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
