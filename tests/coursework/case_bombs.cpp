// Fork, thread and CPU-time bombs in a case's sandbox. A student's kernel
// cannot start processes or threads (it is OpenCL C, and inline assembly is
// refused before anything is built), so these run a program of the tests'
// own (grade_bomb, bombs.cpp) in the case runner's place, under the limits
// and caps the grader gives every case: each bomb is stopped by a limit,
// killed by a cap or by its time limit, judged `crash` or `timeout` with the
// reason, and the grader goes on to the next case and the next student.
#include "tests/catch.hpp"

#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include "common/machinery/device_choice.hpp"
#include "common/machinery/guard.hpp"
#include "common/machinery/sanitizer.hpp"
#include "common/machinery/program_cache.hpp"
#include "common/machinery/reference.hpp"
#include "common/machinery/registry.hpp"
#include "common/machinery/report.hpp"
#include "common/machinery/settings.hpp"
#include "coursework/case_caps.hpp"
#include "coursework/case_run.hpp"
#include "coursework/grading.hpp"
#include "coursework/sandbox.hpp"
#include "tests/files.hpp"
#include "tests/process.hpp"

namespace fs = std::filesystem;
using namespace conv::grade;
using conv::test::read_text;

namespace {

// A sandbox as the grader makes it, with grade_bomb as its case runner.
Sandbox bomb_sandbox(const fs::path& dir) {
  Sandbox box;
  box.bwrap = find_bwrap();
  INFO("bubblewrap is needed (Debian: apt-get install bubblewrap)");
  REQUIRE(!box.bwrap.empty());
  box.drop_to_nobody = geteuid() == 0;
  fs::create_directories(dir / "inputs");
  for (const fs::path& p : {fs::path(conv::test::scratch_dir()), dir})
    fs::permissions(p, fs::perms::owner_all | fs::perms::group_exec | fs::perms::others_exec);
  box.inputs = (dir / "inputs").string();
  // A fresh copy each time: the last bomb's processes may still be ending.
  static int copies = 0;
  box.runner = (dir / ("grade-case-" + std::to_string(++copies))).string();
  fs::copy_file(fs::path(CLCONV_BIN_DIR) / "grade_bomb", box.runner, fs::copy_options::overwrite_existing);
  fs::permissions(box.runner, fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec |
                                  fs::perms::others_read | fs::perms::others_exec);
  return box;
}

fs::path work_folder(const Sandbox& box, const fs::path& dir, const std::string& name) {
  const fs::path work = dir / name;
  remove_tree(work.string());
  fs::create_directories(work);
  fs::permissions(work, fs::perms::owner_all);
  hand_over(box, work.string());
  return work;
}

// Runs a bomb, then waits (up to 20 s) until the sandbox's user runs no
// more tasks than before it: a PID namespace of hundreds of processes takes
// a moment to end, and the next bomb shares their limit.
conv::ChildResult run(conv::ChildSpec spec, const fs::path& dir) {
  spec.out_path = (dir / "out").string();
  spec.err_path = (dir / "err").string();
  const uid_t uid = spec.drop_to_nobody ? 65534 : getuid();
  const int before = user_tasks(uid);
  const conv::ChildResult r = conv::run_child(spec);
  for (int i = 0; i < 200 && user_tasks(uid) > before + 16; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  return r;
}

// What judge() makes of a run that wrote no image.
CaseOutcome verdict(const conv::ChildResult& r, const fs::path& work, double limit_s) {
  static Case c;
  c.title = "a bomb";
  CaseContext context;
  context.test = &c;
  context.kernel_file = "bomb.cl";
  context.limit_s = limit_s;
  context.sandboxed = true;
  return judge(context, r, (work / "no-such-output").string());
}

long made(const std::string& result) { return std::strtol(result.c_str() + result.find(':') + 1, nullptr, 10); }

// A process limit `more` tasks above what the sandbox's user runs now, for
// a bomb: the limit the grader sets (process_limit) is shared by every case
// of uid 65534 on the machine, and a test that filled it would stop the
// cases of a grader running beside it.
std::uint64_t limit_above_now(const Sandbox& box, int more) {
  return static_cast<std::uint64_t>(user_tasks(box.drop_to_nobody ? 65534 : getuid()) + more);
}

}  // namespace

TEST_CASE("a case's processes and threads stop at its process limit", "[grade][sandbox][bombs]") {
  const fs::path dir = fs::path(conv::test::scratch_dir()) / "bombs-limit";
  const Sandbox box = bomb_sandbox(dir);
  for (const std::string mode : {"fork", "threads"}) {
    INFO(mode);
    const fs::path work = work_folder(box, dir, mode);
    conv::ChildSpec spec = sandboxed(box, work.string(), {mode, std::string(kWorkInside) + "/result"}, 60);
    REQUIRE(spec.processes > 0);  // RLIMIT_NPROC is set, as root or not
    CHECK(spec.processes == process_limit(box));
    spec.processes = limit_above_now(box, 64);
    spec.over_cap = nullptr;      // the limit alone, without the grader's cap
    const auto start = std::chrono::steady_clock::now();
    const conv::ChildResult r = run(spec, dir);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    INFO(read_text((dir / "err").string()));
    CHECK_FALSE(r.timed_out);
    CHECK(seconds < 30);
    const std::string result = read_text((work / "result").string());
    INFO(result);
    CHECK_THAT(result, ContainsText(mode + ": ") && ContainsText("then EAGAIN"));
    CHECK(made(result) > 10);  // it could start some: the limit is no ban
    CHECK(made(result) <= 64);
    remove_tree(work.string());
  }
}

TEST_CASE("the process limit is what the user runs now plus an allowance, or the allowance for uid 65534",
          "[grade][sandbox][bombs]") {
  Sandbox box;
  box.drop_to_nobody = true;
  const std::uint64_t allowance = kProcessAllowance + 64 * std::max(1u, std::thread::hardware_concurrency());
  CHECK(process_limit(box) == allowance);
  box.drop_to_nobody = false;
  const int now = user_tasks(getuid());
  CHECK(now >= 2);  // this test's process, its threads, the shell that started it ...
  CHECK(process_limit(box) >= allowance + static_cast<std::uint64_t>(now) - 50);
  CHECK(process_limit(box) <= allowance + static_cast<std::uint64_t>(now) + 50);
  box.enabled = false;  // --no-sandbox: the grader's own user
  CHECK(process_limit(box) >= allowance);
  // RLIMIT_CPU: every core busy for the whole time limit, and 10 s more.
  box.enabled = true;
  const conv::ChildSpec spec = sandboxed(box, "/nowhere", {"--probe"}, 7);
  CHECK(spec.cpu_seconds == static_cast<std::uint64_t>(7 * std::max(1u, std::thread::hardware_concurrency())) + 10);
  // An address-space limit on a CPU (none under AddressSanitizer, whose
  // shadow memory needs terabytes of it); none on a GPU (sandbox.hpp).
  CHECK((spec.memory_bytes > 0 || conv::kAddressSanitizer));
  box.gpu = true;
  CHECK(sandboxed(box, "/nowhere", {"--probe"}, 7).memory_bytes == 0);
}

TEST_CASE("fork, thread and CPU-time bombs end as crash or timeout, with the reason", "[grade][sandbox][bombs]") {
  const fs::path dir = fs::path(conv::test::scratch_dir()) / "bombs-caps";
  const Sandbox box = bomb_sandbox(dir);
  SECTION("fork and thread bombs: killed for the threads cap") {
    for (const std::string mode : {"fork", "threads"}) {
      INFO(mode);
      const fs::path work = work_folder(box, dir, mode);
      conv::ChildSpec spec = sandboxed(box, work.string(), {mode, std::string(kWorkInside) + "/result", "wait"}, 60);
      spec.processes = limit_above_now(box, kCaseThreads + 100);  // past the cap, far from the shared limit
      const conv::ChildResult r = run(spec, dir);
      CHECK_FALSE(r.timed_out);
      const CaseOutcome o = verdict(r, work, 60);
      CHECK(o.verdict == Verdict::crash);
      CHECK(r.over_cap == "ran more than " + std::to_string(kCaseThreads) + " threads and processes at once");
      CHECK_THAT(o.reason, ContainsText("threads and processes"));
      remove_tree(work.string());
    }
  }
  SECTION("every core busy: the time limit ends it") {
    const fs::path work = work_folder(box, dir, "spin");
    const conv::ChildSpec spec = sandboxed(box, work.string(), {"spin", std::string(kWorkInside) + "/result"}, 1.5);
    const conv::ChildResult r = run(spec, dir);
    CHECK(r.timed_out);
    CHECK(r.seconds < 10);
    const CaseOutcome o = verdict(r, work, 1.5);
    CHECK(o.verdict == Verdict::timeout);
    CHECK_THAT(o.reason, ContainsText("a bomb"));
    remove_tree(work.string());
  }
  SECTION("every core busy: RLIMIT_CPU ends it before a long time limit") {
    const fs::path work = work_folder(box, dir, "spin-cpu");
    conv::ChildSpec spec = sandboxed(box, work.string(), {"spin", std::string(kWorkInside) + "/result"}, 60);
    spec.cpu_seconds = 1;  // a small limit stands in for timeout x cores + 10
    const conv::ChildResult r = run(spec, dir);
    INFO("status " << r.status << ", signal " << r.signal << ", " << r.seconds << " s");
    CHECK_FALSE(r.timed_out);
    CHECK(r.seconds < 20);
    const CaseOutcome o = verdict(r, work, 60);
    CHECK(o.verdict == Verdict::crash);
    CHECK_THAT(o.reason, ContainsText("SIGXCPU") || ContainsText("SIGKILL"));
    remove_tree(work.string());
  }
}

TEST_CASE("the grader goes on after a bomb: the next case, the next student", "[grade][sandbox][bombs]") {
  const fs::path dir = fs::path(conv::test::scratch_dir()) / "bombs-class";
  Setup setup;
  setup.step = std::shared_ptr<conv::Step>(conv::find_step("step1-naive").release());
  setup.step_name = setup.step->name();
  setup.seed = 11;
  setup.oclgrind_wanted = false;
  setup.sandbox = bomb_sandbox(dir);
  setup.scratch = dir.string();
  prepare_cases(setup);
  setup.cases.resize(2);  // two cases each: the second runs after the first was killed
  setup.limits.assign(setup.cases.size(), 2);
  std::vector<Submission> class_of;
  for (const std::string mode : {"fork", "threads", "spin"}) {
    Submission s;
    s.student = mode + "-bomb";
    s.path = (dir / "class" / (mode + ".cl")).string();
    fs::create_directories(dir / "class");
    std::ofstream(s.path) << "// " << mode << "\n__kernel void convolve() {}\n";
    class_of.push_back(s);
  }
  int done = 0;
  const auto start = std::chrono::steady_clock::now();
  const auto grades = grade_all(setup, class_of, 1, [&](const Grade&) { ++done; });
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  CHECK(done == 3);
  CHECK(seconds < 60);
  REQUIRE(grades.size() == 3);
  for (const auto& g : grades) {
    INFO(g.student << ": " << verdict_name(g.verdict) << ": " << g.reason);
    CHECK(!g.reason.empty());
    CHECK(g.cases_passed == 0);
  }
  CHECK(grades[0].verdict == Verdict::crash);  // fork: both cases run, both killed
  CHECK_THAT(grades[0].reason, ContainsText("1 more case(s) fail"));
  CHECK(grades[1].verdict == Verdict::crash);
  CHECK(grades[2].verdict == Verdict::timeout);  // spin: the later case is not run
  CHECK_THAT(grades[2].reason, ContainsText("1 later case(s) not run after the timeout"));
}
