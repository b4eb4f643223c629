// grade --speed: a submission that passes every case is timed against a
// reference kernel, in turns, on one larger case; `slow` when it is slower
// by more than the margin and the noise measured. The step's own kernel
// passes, a correct kernel with a pointless loop is slow, and a kernel that
// would skip its work once its output holds a result cannot gain by it.
#include "tests/catch.hpp"

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "common/machinery/device_choice.hpp"
#include "common/machinery/guard.hpp"
#include "common/machinery/program_cache.hpp"
#include "common/machinery/reference.hpp"
#include "common/machinery/registry.hpp"
#include "common/machinery/report.hpp"
#include "common/machinery/settings.hpp"
#include "coursework/grading.hpp"
#include "coursework/report.hpp"
#include "tests/coursework/edit.hpp"
#include "tests/files.hpp"
#include "tests/process.hpp"

namespace fs = std::filesystem;
using conv::test::write_file;
using conv::test::mutate;
using namespace conv::grade;
using conv::test::read_text;

namespace {

// The CSV's rows by student: each row's fields.
std::map<std::string, std::vector<std::string>> rows_by_student(const std::string& csv) {
  std::map<std::string, std::vector<std::string>> rows;
  std::istringstream lines(csv);
  std::string line;
  std::getline(lines, line);  // the header
  while (std::getline(lines, line)) {
    std::vector<std::string> fields;
    std::string field;
    bool quoted = false;
    for (char c : line) {
      if (c == '"') quoted = !quoted;
      else if (c == ',' && !quoted) fields.push_back(field), field.clear();
      else field += c;
    }
    fields.push_back(field);
    rows[fields.front()] = fields;
  }
  return rows;
}

}  // namespace

TEST_CASE("grade --speed: the step's own kernel passes, a kernel with a pointless loop is slow",
          "[grade][speed]") {
  const fs::path dir = fs::path(conv::test::scratch_dir()) / "speed-class";
  const std::string good = conv::find_step("step1-naive")->embedded_source();
  const std::string start = "  float sum = 0.0f;";
  write_file(dir / "class" / "own.cl", good);
  // Correct, and several times slower: a loop the compiler cannot drop.
  write_file(dir / "class" / "pointless-loop.cl",
        mutate(good, start,
               start + "\n  float waste = 0.0f;\n  for (int k = 0; k < 100; ++k) waste = waste * 0.999f + input[0];\n"
                       "  if (waste < -1e30f) sum = 1.0f;"));
  // Returns at once where its output already holds a number: were the
  // timed launches not poisoned again, it would do no work after the first.
  write_file(dir / "class" / "skips-work.cl",
        mutate(good, "  if (x >= out_width || y >= out_height) return;",
               "  if (x >= out_width || y >= out_height) return;\n"
               "  if (output[y * out_width + x] == output[y * out_width + x]) return;"));
  // Right on every case, one pixel wrong on the speed case alone (no case
  // of the suite is 256x256): the timed runs' results are checked too,
  // against the reference the grader computed once for all of them.
  write_file(dir / "class" / "wrong-when-timed.cl",
        mutate(good, "  output[y * out_width + x] = sum;",
               "  if (out_width == 256 && out_height == 256 && x == 7 && y == 7) sum += 1.0f;\n"
               "  output[y * out_width + x] = sum;"));
  const std::string report = (dir / "grades.csv").string();
  const auto r = conv::test::run_program(
      "grade", {"--step", "1", (dir / "class").string(), "--no-oclgrind", "--case-timeout", "60", "--speed",
                "--speed-size", "256x256", "--speed-runs", "3", "--rank", "--jobs", "2", "--report", report},
      {}, 300);
  INFO(r.out << r.err);
  REQUIRE(r.status == 0);
  CHECK_THAT(r.err, ContainsText("grade: --speed: against step1-naive's own kernel"));
  CHECK_THAT(r.out, ContainsText("speed against step1-naive's kernel on 256x256, motion45 (margin 10 %)") &&
                        ContainsText("| kernel ms | x reference |") && ContainsText("Ranking by kernel time"));
  const std::string csv = read_text(report);
  CHECK(csv.rfind("student,step,verdict,cases_passed,cases_total,reason,seconds,sandbox,kernel_ms,reference_ms,"
                  "speed_ratio,speed_noise\n", 0) == 0);
  auto rows = rows_by_student(csv);
  REQUIRE(rows.size() == 4);
  CHECK(rows["wrong-when-timed"][2] == "wrong");
  CHECK_THAT(rows["wrong-when-timed"][5], ContainsText("the speed case: 256x256") && ContainsText("worst at (7, 7)") &&
                                              ContainsText("(every other case passes)"));
  rows.erase("wrong-when-timed");
  for (const auto& [student, fields] : rows) {
    INFO(student);
    REQUIRE(fields.size() == 12);
    CHECK(std::stod(fields[8]) > 0);   // kernel_ms
    CHECK(std::stod(fields[9]) > 0);   // reference_ms
    CHECK(std::stod(fields[10]) > 0);  // speed_ratio
    CHECK(std::stod(fields[11]) >= 0); // speed_noise
  }
  CHECK(rows["own"][2] == "pass");
  CHECK(std::stod(rows["own"][10]) < 1 + kSpeedMargin + 0.5);
  CHECK(rows["pointless-loop"][2] == "slow");
  CHECK(std::stod(rows["pointless-loop"][10]) > 2);
  CHECK_THAT(rows["pointless-loop"][5],
             ContainsText("x slower than step1-naive's kernel: ") && ContainsText(" ms against ") &&
                 ContainsText("the median of 3 runs of 10 launches each, in turns with the reference's") &&
                 ContainsText("the exercise asks for at least as fast as step1-naive's kernel (margin 10 %, noise "
                              "measured "));
  // Its extra read makes it a little slower, slow or not by the noise: what
  // matters is that it gained nothing, for it did its work every time.
  CHECK((rows["skips-work"][2] == "pass" || rows["skips-work"][2] == "slow"));
  CHECK(std::stod(rows["skips-work"][10]) > 0.5);
  // The ranking: the loop last.
  const auto ranking = r.out.substr(r.out.find("Ranking by kernel time"));
  CHECK_THAT(ranking, ContainsText("| 3 | pointless-loop | slow |"));
}

TEST_CASE("grade --speed's parts: the verdict's bound, the default reference, the options", "[grade][speed]") {
  SpeedMeasure m;
  m.ratio = 1.2;
  m.noise = 0.05;
  CHECK(is_slow(m, 0.10));         // over 1 + 10 % + 5 %
  CHECK_FALSE(is_slow(m, 0.20));   // within 1 + 20 % + 5 %
  m.noise = 0.2;
  CHECK_FALSE(is_slow(m, 0.10));   // noisier measurements widen the bound
  m.ok = false;
  CHECK_FALSE(is_slow(m, 0.10));   // a run that failed has another verdict
  m.timed_out = true;
  CHECK(is_slow(m, 0.10));         // a timing run past its limit is slow
  CHECK(default_speed_reference("step1-naive") == "step1-naive");
  CHECK(default_speed_reference("step2-constant") == "step1-naive");
  CHECK(default_speed_reference("step3-local") == "step2-constant");

  const fs::path cls = fs::path(conv::test::scratch_dir()) / "speed-cli";
  write_file(cls / "a.cl", "__kernel void convolve() { __asm__(\"nop\"); }\n");
  for (const auto& args : std::vector<std::vector<std::string>>{
           {"--rank"},
           {"--speed-reference", "3"},
           {"--speed-margin", "5"},
           {"--speed", "--speed-margin", "nan"},
           {"--speed", "--speed-margin", "-1"},
           {"--speed", "--speed-size", "8192x8192"},
           {"--speed", "--speed-size", "0x5"},
           {"--speed", "--speed-filter", "box:63", "--speed-size", "32x32"},
           {"--speed", "--speed-runs", "1"},
           {"--speed", "--speed-reference", "99"}}) {
    std::vector<std::string> all = {"--step", "1", cls.string(), "--no-oclgrind", "--no-sandbox", "--case-timeout", "5"};
    all.insert(all.end(), args.begin(), args.end());
    const auto r = conv::test::run_program("grade", all);
    INFO(args.front() << " " << args.back() << ": " << r.err);
    CHECK(r.status == 2);
    CHECK(r.err_lines() == 1);
    CHECK_THAT(r.err, !ContainsText("timing"));  // before any grading
  }
  const auto help = conv::test::run_program("grade", {"--help"});
  CHECK_THAT(help.out, ContainsText("--speed-reference") && ContainsText("--rank") && ContainsText("slow ("));
}
