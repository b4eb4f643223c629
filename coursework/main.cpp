// build/bin/grade: grades a class's submissions for one step
// (docs/coursework.md). Every submission goes through the step's
// conformance cases, each case in a child process with a time limit, so no
// submission can crash, hang or slow the grader; each gets one verdict and
// a reason. Exit status: 0 when every submission was graded, whatever the
// verdicts; 1 when the grader could not run; 2 for a command-line mistake.
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <memory>
#include <random>
#include <thread>
#include <tuple>

#include "common/machinery/cli.hpp"
#include "common/machinery/device_choice.hpp"
#include "common/machinery/filter_specs.hpp"
#include "common/machinery/guard.hpp"
#include "common/machinery/image_files.hpp"
#include "common/machinery/parse.hpp"
#include "common/machinery/program_cache.hpp"
#include "common/machinery/reference.hpp"
#include "common/machinery/registry.hpp"
#include "common/machinery/report.hpp"
#include "common/machinery/settings.hpp"
#include "coursework/case_caps.hpp"
#include "coursework/grading.hpp"
#include "coursework/oclgrind.hpp"
#include "coursework/report.hpp"
#include "coursework/sandbox.hpp"
#include "coursework/structure.hpp"
#include "coursework/student_kernel.hpp"

namespace fs = std::filesystem;
using namespace conv;
using namespace conv::grade;

namespace {

// A step whose kernel a student's file can replace: CLCONV_KERNEL_STEP<N>
// names it, and the step has a kernel of its own to replace.
bool gradable(const Step& step) {
  return !kernel_variable(step.name()).empty() && !step.embedded_source().empty() &&
         !suite_configurations(step, true).empty();
}

std::string gradable_steps() {
  std::string list;
  for (const auto& step : all_steps())
    if (gradable(*step)) list += (list.empty() ? "" : ", ") + step->name();
  return list;
}

std::string structural_help() {
  std::string per_step, meaning;
  std::vector<std::string> seen;
  for (const auto& step : all_steps()) {
    std::string names;
    for (const auto& check : structure_checks(step->name())) {
      names += (names.empty() ? "" : ", ") + check.name;
      if (std::find(seen.begin(), seen.end(), check.name) == seen.end()) {
        seen.push_back(check.name);
        meaning += "  " + check.name + ": " + check.what + "\n";
      }
    }
    if (!names.empty()) per_step += "  " + step->name() + ": " + names + "\n";
  }
  return per_step.empty() ? "  (no step has any)\n" : per_step + meaning;
}

// The folder of this executable: the suite's binary is built beside it.
std::string own_folder() {
  std::error_code ec;
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);
  return ec ? "." : self.parent_path().string();
}

// The grader's temporary folder: <tmp>/clconv-grade-<uid>/<pid>-XXXXXX.
// A grader killed from outside (SIGKILL) cannot remove its own, so each
// run first removes those whose process is gone. The folders are 0711:
// the sandbox's user (uid 65534) must pass through them to its own.
struct Scratch {
  std::string path;
  Scratch() {
    const fs::path parent = fs::temp_directory_path() / ("clconv-grade-" + std::to_string(geteuid()));
    mkdir(parent.c_str(), 0711);
    struct stat st {};
    if (lstat(parent.c_str(), &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != geteuid())
      throw Error(parent.string() + ": not a folder of this user's (the grader's temporary folders go there)");
    chmod(parent.c_str(), 0711);
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(parent, ec)) {
      const std::string name = e.path().filename().string();
      const long pid = std::strtol(name.c_str(), nullptr, 10);
      if (pid > 0 && kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH) remove_tree(e.path().string());
    }
    std::string templ = (parent / (std::to_string(getpid()) + "-XXXXXX")).string();
    if (!mkdtemp(templ.data())) throw Error("cannot create a temporary folder in " + parent.string());
    chmod(templ.c_str(), 0711);
    path = templ;
  }
  ~Scratch() { remove_tree(path); }
};

// Refuses a --report the grader could not write at the end, before any
// grading: a name not ending in .csv, a folder, something not a regular
// file, a folder it cannot create files in. A symbolic link is judged by what it names (the report
// is written through it), a dangling one too.
void check_report(const std::string& report) {
  check_output_extension(report, {".csv"}, "--report");
  std::string target;
  try {
    target = output_target(fs::absolute(report).string());
  } catch (const std::exception& e) {
    throw UsageError(std::string("--report: ") + e.what());
  }
  const fs::path path = fs::absolute(target);
  const fs::path parent = path.parent_path();
  std::error_code ec;
  if (!fs::is_directory(parent, ec))
    throw UsageError("--report: no folder " + parent.string() + (target == report ? "" : " (where the link " + report + " points)"));
  struct stat st {};
  if (stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode))
    throw UsageError("--report: " + report + " is a folder; name a file");
  if (stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode))
    throw UsageError("--report: " + report + " is not a regular file");
  const std::string probe = (parent / (".grade-probe-" + std::to_string(getpid()))).string();
  const int fd = open(probe.c_str(), O_WRONLY | O_CREAT | O_EXCL, 0600);
  if (fd < 0)
    throw UsageError("--report: cannot write in " + parent.string() + ": " + std::strerror(errno));
  close(fd);
  unlink(probe.c_str());
}

// The sandbox for the cases, tried once; with --no-sandbox, none.
Sandbox make_sandbox(const Setup& setup, bool wanted, const DeviceFacts& facts) {
  Sandbox box;
  box.enabled = wanted;
  box.env = setup.device_env;
  box.gpu = facts.is_gpu;
  box.device_name = facts.name;
  box.inputs = setup.scratch + "/inputs";
  fs::create_directories(box.inputs);
  // A copy of the runner, where the sandbox's user can read it (the build
  // folder may be under a home folder it cannot enter).
  const std::string runner = own_folder() + "/grade-case";
  if (access(runner.c_str(), X_OK) != 0)
    throw Error(runner + ": the grader's case runner is missing (build it: cmake --build --preset default)");
  box.runner = setup.scratch + "/grade-case";
  fs::copy_file(runner, box.runner, fs::copy_options::overwrite_existing);
  chmod(box.runner.c_str(), 0755);
  if (!wanted) return box;
  box.drop_to_nobody = geteuid() == 0;
  box.bwrap = find_bwrap();
  std::string why = box.bwrap.empty() ? "bubblewrap (bwrap) is not installed (Debian: apt-get install bubblewrap)"
                                      : bwrap_lacks(box.bwrap);
  if (why.empty()) why = probe_sandbox(box, setup.scratch);
  if (!why.empty())
    throw Error("the sandbox for the cases cannot start: " + why +
                "; grade with --no-sandbox only for code you trust (docs/coursework.md)");
  return box;
}

// SIGINT, SIGTERM and SIGHUP (those not ignored, as under nohup) go to one
// thread, which ends every child (they run in process groups of their own,
// out of the terminal's reach) and exits without writing a report. They are
// blocked first thing in main(), before any thread exists (PoCL starts
// some), so that no other thread takes one.
sigset_t interrupt_signals() {
  sigset_t set;
  sigemptyset(&set);
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) {
    struct sigaction current {};
    if (sigaction(sig, nullptr, &current) == 0 && current.sa_handler != SIG_IGN) sigaddset(&set, sig);
  }
  return set;
}

void handle_interrupts(const sigset_t& set, const std::string& scratch, const std::string& lock_file) {
  std::thread([set, scratch, lock_file] {
    int sig = 0;
    if (sigwait(&set, &sig) != 0) return;
    kill_all_children();
    remove_tree(scratch);
    if (!lock_file.empty()) unlink(lock_file.c_str());  // still held: _exit drops it
    std::cerr << "grade: interrupted; no report written" << std::endl;
    _exit(128 + sig);
  }).detach();
}

int run(int argc, char** argv, const sigset_t& interrupts) {
  CLI::App app(
      "grade: grades a folder of submissions for one step with the step's conformance cases",
      "grade");
  std::string step_name, folder, report;
  int jobs = 1;
  double case_timeout = 0;
  std::int64_t seed = -1;
  bool no_oclgrind = false, no_sandbox = false, speed = false, rank = false;
  std::string speed_reference, speed_size = "1024x1024", speed_filter = "motion45";
  double speed_margin = 100 * kSpeedMargin;
  int speed_runs = kSpeedRuns;
  DeviceOptions device_options;
  app.add_option("--step", step_name, "The step graded, by number or name: " + gradable_steps());
  app.add_option("submissions", folder,
                 "Folder of submissions: one NAME.cl per student, or one folder NAME/ per student "
                 "holding the step's file (STEP.cl, convolve.cl, or its only .cl file)");
  app.add_option("--report", report, "Also write the grades as CSV to this file (.csv)");
  app.add_option("--jobs", jobs, "Submissions graded at once")->capture_default_str()->check(CLI::Range(1, 64));
  auto* timeout_option = app.add_option("--case-timeout", case_timeout,
                 "Seconds each case may take. Default: " + std::to_string(int(kLimitMultiple)) +
                     " x what the step's own kernel takes on that case, measured first (under the "
                     "same --jobs), and at least " + std::to_string(int(kMinCaseLimit)) + " s; from 0.1 "
                     "to 86400, in plain decimal (no unit, no exponent)")
      ->check(seconds_limit(86400));
  app.add_option("--seed", seed,
                 "CLCONV_TEST_SEED for every case, so every student meets the same images and "
                 "filters (default: a fresh one, printed)")
      ->check(CLI::Range(std::int64_t{0}, std::int64_t{4294967295}));
  app.add_flag("--no-oclgrind", no_oclgrind,
               "Do not run a crashed case under Oclgrind (found as $OCLGRIND or on the PATH); "
               "print the command instead");
  app.add_flag("--no-sandbox", no_sandbox,
               "Run the cases without bubblewrap's sandbox (only the limits): for code you trust, or "
               "where user namespaces are off; the report says so");
  app.add_flag("--speed", speed,
               "Also time every submission that passes against a reference kernel on one larger case "
               "(--speed-size, --speed-filter): the verdict is slow when it is slower by more than the "
               "margin and the noise measured");
  app.add_option("--speed-reference", speed_reference,
                 "With --speed: the step whose own kernel sets the speed asked for, by number or name "
                 "(default: the previous step's, or the step's own for the first)");
  app.add_option("--speed-margin", speed_margin,
                 "With --speed: how much slower than the reference still passes, in percent, before the "
                 "noise measured is added")
      ->capture_default_str();
  app.add_option("--speed-size", speed_size, "With --speed: the speed case's image, WxH (at most 4096x4096)")
      ->capture_default_str();
  app.add_option("--speed-filter", speed_filter, "With --speed: the speed case's filter")->capture_default_str();
  app.add_option("--speed-runs", speed_runs,
                 "With --speed: runs of each kernel, in turns (reference, submission, ...), each of " +
                     std::to_string(kSpeedLaunches) + " timed launches")
      ->capture_default_str()
      ->check(CLI::Range(3, 50));
  app.add_flag("--rank", rank, "With --speed: also print the class ranked by kernel time");
  add_device_options(app, device_options);
  app.footer(
      "Example: build/bin/grade --step 3 submissions/ --report grades.csv (docs/coursework.md)\n"
      "Verdicts: pass; wrong (the first failing case, its worst pixel, the seed); structure (every "
      "case passes but a structural check fails); build-error (the compiler's first errors); "
      "crash (the signal, and Oclgrind's first report or the command that gets it); timeout (the "
      "case and its limit; later cases are not run); forbidden (inline assembly, an #include "
      "outside the student's folder, a symbolic link); missing or unreadable (the path and why); "
      "not-graded (an entry that is no submission); with --speed, slow (every case passes, but the "
      "kernel is slower than the reference's by more than the margin and the noise measured: the "
      "ratio, both times, the margin and the noise).\n"
      "Structural checks (read from the source, comments removed):\n" + structural_help() +
      "Report: a Markdown table on standard output, --report CSV with the columns "
      "student,step,verdict,cases_passed,cases_total,reason,seconds,sandbox,kernel_ms,reference_ms,"
      "speed_ratio,speed_noise (the last four with --speed; written whole, under a "
      "lock beside it: a second grader on the same report stops at once), a progress line per "
      "submission on standard error.\n"
      "Exit status: 0 when every submission was graded (whatever the verdicts), 1 when the "
      "grader could not run (the sandbox among the reasons), 2 for a command-line mistake.");
  if (int rc = parse_command_line(app, argc, argv); rc >= 0) return rc;

  if (step_name.empty()) throw UsageError("--step is required: the step graded (" + gradable_steps() + ")");
  if (folder.empty()) throw UsageError("name the folder of submissions");
  Setup setup;
  const std::shared_ptr<Step> step(find_step(step_name).release());
  setup.step = step;
  setup.step_name = step->name();
  setup.variable = kernel_variable(setup.step_name);
  if (!gradable(*step))
    throw UsageError("--step: " + setup.step_name + " takes no student kernel (gradable: " + gradable_steps() + ")");
  if (!std::isfinite(case_timeout))
    throw UsageError("--case-timeout: not a number of seconds");
  // The speed options mean nothing without --speed: refused, not ignored.
  for (const char* name : {"--speed-reference", "--speed-margin", "--speed-size", "--speed-filter", "--speed-runs",
                           "--rank"})
    if (!speed && app.get_option(name)->count() > 0)
      throw UsageError(std::string(name) + ": only with --speed");
  int speed_width = 0, speed_height = 0;
  if (speed) {
    if (!std::isfinite(speed_margin) || speed_margin < 0 || speed_margin > 1000)
      throw UsageError("--speed-margin: a percentage from 0 to 1000");
    setup.speed.enabled = true;
    setup.speed.margin = speed_margin / 100;
    setup.speed.runs = speed_runs;
    setup.speed.reference_name =
        speed_reference.empty() ? default_speed_reference(setup.step_name) : find_step(speed_reference)->name();
    setup.speed.reference = std::shared_ptr<Step>(find_step(setup.speed.reference_name).release());
    if (!gradable(*setup.speed.reference))
      throw UsageError("--speed-reference: " + setup.speed.reference_name +
                       " has no kernel a file can replace, so none to time (" + gradable_steps() + ")");
    std::tie(speed_width, speed_height) = parse_size(speed_size, "--speed-size", 4096);
    const Filter filter = parse_filter_spec(speed_filter);
    if (filter.width > std::min(speed_width, speed_height))
      throw UsageError("--speed-filter: " + filter.name + " is wider than the speed case's image " + speed_size);
  }
  if (timeout_option->count() > 0 && case_timeout < 0.1)
    throw UsageError("--case-timeout: at least 0.1 seconds");
  // A second grader writing the same report stops here, before any work
  // (ReportLock, coursework/report.hpp); the lock is held until it is written.
  std::unique_ptr<ReportLock> report_lock;
  if (!report.empty()) {
    check_report(report);
    report_lock = std::make_unique<ReportLock>(report);
  }
  const auto submissions = find_submissions(fs::absolute(folder).lexically_normal().string(), setup.step_name);
  if (submissions.empty())
    throw Error(folder + ": no submissions (NAME.cl files or NAME/ folders) in it");

  const DeviceEntry device = choose_device(device_options.choice);
  const DeviceFacts facts = read_facts(device.device);
  const auto& c = device_options.choice;
  if (!c.platform.empty()) setup.device_env.push_back({"CLCONV_PLATFORM", c.platform});
  if (!c.device.empty()) setup.device_env.push_back({"CLCONV_DEVICE", c.device});
  if (!c.type.empty()) setup.device_env.push_back({"CLCONV_DEVICE_TYPE", c.type});

  setup.conformance = own_folder() + "/conformance_tests";
  setup.seed = seed >= 0 ? static_cast<std::uint32_t>(seed) : std::random_device{}();
  setup.oclgrind_wanted = !no_oclgrind;
  if (!no_oclgrind) setup.oclgrind = find_oclgrind();
  Scratch scratch;
  setup.scratch = scratch.path;
  handle_interrupts(interrupts, scratch.path, report_lock ? report_lock->path() : "");
  setup.sandbox = make_sandbox(setup, !no_sandbox, facts);
  if (no_sandbox)
    std::cerr << "grade: --no-sandbox: the cases run without the sandbox; the report records it" << std::endl;
  prepare_cases(setup);
  if (speed) {
    std::cerr << "grade: the speed case's serial reference (" << speed_width << "x" << speed_height << ", "
              << one_line(speed_filter) << "), once for every timed run" << std::endl;
    prepare_speed(setup, speed_width, speed_height, speed_filter);
  }
  if (case_timeout > 0) {
    setup.limits.assign(setup.cases.size(), case_timeout);
  } else {
    std::cerr << "grade: timing " << setup.step_name << "'s own kernel on its " << setup.cases.size()
              << " cases (the default limits)" << std::endl;
    calibrate(setup, jobs);
  }
  double low = 1e300, high = 0;
  for (double l : setup.limits) low = std::min(low, l), high = std::max(high, l);
  char limits[64];
  std::snprintf(limits, sizeof limits, low == high ? "%.0f s" : "%.0f to %.0f s", low, high);
  if (speed) {
    if (setup.speed.reference_name != setup.step_name)
      std::cerr << "grade: timing " << setup.step_name << "'s own kernel against " << setup.speed.reference_name
                << "'s (--speed)" << std::endl;
    std::cerr << "grade: " << check_speed_reference(setup) << std::endl;
  }
  std::cerr << "grade: " << submissions.size() << " submissions for " << setup.step_name << " on "
            << one_line(facts.name) << ", " << setup.cases.size() << " cases each (limits " << limits
            << "), seed " << setup.seed << ", " << jobs << " at a time" << std::endl;

  int done = 0;
  const auto grades = grade_all(setup, submissions, jobs, [&](const Grade& g) {
    std::cerr << "grade: " << progress_line(g, ++done, static_cast<int>(submissions.size())) << std::endl;
  });

  char margin_text[32];
  std::snprintf(margin_text, sizeof margin_text, "%g", speed_margin);
  const std::string title = "Grades for " + setup.step_name + " on " + facts.name + " (" +
                            facts.platform + "), seed " + std::to_string(setup.seed) +
                            ", case limits " + limits +
                            (speed ? ", speed against " + setup.speed.reference_name + "'s kernel on " +
                                         speed_size + ", " + speed_filter + " (margin " + margin_text + " %)"
                                   : "") +
                            (setup.sandbox.enabled ? "" : ", WITHOUT the sandbox (--no-sandbox)");
  print_markdown(std::cout, title, setup.step_name, grades, speed);
  if (rank) print_ranking(std::cout, setup.speed.reference_name, grades);
  std::cout.flush();
  if (!report.empty()) {
    const std::string csv = grades_csv(setup.step_name, grades, setup.sandbox.enabled);
    write_file_atomically(report, std::vector<std::uint8_t>(csv.begin(), csv.end()));
    std::cerr << "grade: wrote " << one_line(report) << std::endl;
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const sigset_t interrupts = interrupt_signals();
  pthread_sigmask(SIG_BLOCK, &interrupts, nullptr);
  return guarded_main("grade", [&] { return run(argc, argv, interrupts); });
}
