// Two graders writing one report: the second stops at once, in one line,
// naming the report and the first grader's process; the first writes the
// report whole; nothing half-written is ever at the report's name.
#include "tests/catch.hpp"

#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <future>
#include <sstream>
#include <thread>

#include "common/core/errors.hpp"
#include "common/machinery/registry.hpp"
#include "coursework/report.hpp"
#include "tests/files.hpp"
#include "tests/process.hpp"

namespace fs = std::filesystem;
using conv::test::write_file;
using namespace conv::grade;
using conv::test::read_text;

namespace {

// A step 1 kernel that never returns, so that a grader is still at work
// when the second one starts.
std::string hanging_kernel() {
  std::string good = conv::find_step("step1-naive")->embedded_source();
  const std::string from = "  float sum = 0.0f;";
  const auto at = good.find(from);
  REQUIRE(at != std::string::npos);
  return good.substr(0, at) + from + "\n  for (int i = 0; i >= 0; i += (x < (1 << 30))) sum += 0.0f;" +
         good.substr(at + from.size());
}

}  // namespace

TEST_CASE("the report's lock: one holder, a one-line refusal naming it, no file left", "[grade][report]") {
  const fs::path dir = fs::path(conv::test::scratch_dir()) / "report-lock";
  fs::create_directories(dir);
  const std::string report = (dir / "grades.csv").string();
  CHECK(report_lock_path(report) == report + ".lock");
  {
    ReportLock first(report);
    CHECK(fs::exists(first.path()));
    CHECK(read_text(first.path()) == std::to_string(getpid()) + "\n");
    // A second lock on the same report (flock locks are per open file, so a
    // second one in the same process is refused as another process's is).
    try {
      ReportLock second(report);
      FAIL("a second lock on the same report was taken");
    } catch (const conv::Error& e) {
      const std::string why = e.what();
      CHECK(why.find('\n') == std::string::npos);
      CHECK_THAT(why, ContainsText("another grade (pid " + std::to_string(getpid()) + ") is writing " + report));
    }
    // Another report in the same folder is not held up.
    ReportLock other((dir / "other.csv").string());
  }
  CHECK_FALSE(fs::exists(report + ".lock"));
  CHECK_FALSE(fs::exists(dir / "other.csv.lock"));
  // A lock file left by a grader killed from outside holds no lock.
  write_file(report + ".lock", "999999\n");
  { ReportLock again(report); }
  // Through a symbolic link: the lock is beside the file it names.
  fs::create_symlink(dir / "grades.csv", dir / "link.csv");
  CHECK(report_lock_path((dir / "link.csv").string()) == report + ".lock");
  // A name of the longest length still gets a lock file beside it.
  const std::string longest = (dir / std::string(255, 'g')).string();
  CHECK(fs::path(report_lock_path(longest)).parent_path() == dir);
  CHECK(fs::path(report_lock_path(longest)).filename().string().size() <= 255);
}

TEST_CASE("two graders on one report: one writes it whole, the other stops in one line", "[grade][report]") {
  const fs::path dir = fs::path(conv::test::scratch_dir()) / "two-graders";
  write_file(dir / "class" / "hangs.cl", hanging_kernel());
  const std::string cls = (dir / "class").string();
  const std::string report = (dir / "grades.csv").string();
  write_file(report, "the old report\n");
  const std::vector<std::string> args = {"--step", "1", cls, "--no-oclgrind", "--case-timeout", "3",
                                         "--seed", "7", "--report", report};
  // The first grader; the second starts once the first holds the lock.
  auto first = std::async(std::launch::async, [&] { return conv::test::run_program("grade", args); });
  const auto start = std::chrono::steady_clock::now();
  while (!fs::exists(report + ".lock") && std::chrono::steady_clock::now() - start < std::chrono::seconds(30))
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  REQUIRE(fs::exists(report + ".lock"));
  const auto second = conv::test::run_program("grade", args);
  INFO("second: " << second.err);
  CHECK(second.status == 1);
  CHECK(second.err_lines() == 1);
  CHECK_THAT(second.err, ContainsText("another grade (pid ") && ContainsText("is writing " + report));
  CHECK_THAT(second.err, !ContainsText("timing"));  // stopped before any work
  CHECK(read_text(report) == "the old report\n");   // untouched while the first works
  const auto r = first.get();
  INFO("first: " << r.err);
  CHECK(r.status == 0);
  const std::string csv = read_text(report);
  CHECK(csv.rfind("student,step,verdict,", 0) == 0);
  CHECK_THAT(csv, ContainsText("\nhangs,step1-naive,timeout,"));
  CHECK(csv.back() == '\n');
  CHECK_FALSE(fs::exists(report + ".lock"));
  for (const auto& e : fs::directory_iterator(dir))  // no temporary left beside the report
    CHECK(e.path().filename().string().rfind(".clconv-", 0) != 0);

  // Held by this process: the grader refuses at once, naming it.
  {
    ReportLock held(report);
    const auto refused = conv::test::run_program("grade", args);
    CHECK(refused.status == 1);
    CHECK_THAT(refused.err, ContainsText("another grade (pid " + std::to_string(getpid()) + ")"));
  }
}
