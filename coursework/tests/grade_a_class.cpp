// The grader over a class the test builds itself: one submission of every
// kind an instructor meets, each of which must get its verdict, with the
// hanging one among them, in one run of build/bin/grade.
#include <catch2/catch.hpp>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>

#include "common/registry.hpp"
#include "tests/files.hpp"
#include "tests/process.hpp"

namespace fs = std::filesystem;
using Catch::Matchers::Contains;
using Catch::Matchers::Matches;

namespace {

// `from` replaced by `to` once; a mutation that no longer applies (the
// step's kernel changed) fails the test instead of grading the original.
std::string mutate(const std::string& source, const std::string& from, const std::string& to) {
  const auto at = source.find(from);
  INFO("the text to change: " << from);
  REQUIRE(at != std::string::npos);
  return source.substr(0, at) + to + source.substr(at + from.size());
}

void write(const fs::path& path, const std::string& text) {
  fs::create_directories(path.parent_path());
  std::ofstream(path, std::ios::binary) << text;
}

std::string read(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::vector<std::vector<std::string>> parse_csv(const std::string& text) {
  std::vector<std::vector<std::string>> rows(1);
  std::string field;
  bool quoted = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quoted) {
      if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') field += '"', ++i;
      else if (c == '"') quoted = false;
      else field += c;
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      rows.back().push_back(field), field.clear();
    } else if (c == '\n') {
      rows.back().push_back(field), field.clear();
      rows.emplace_back();
    } else {
      field += c;
    }
  }
  if (rows.back().empty()) rows.pop_back();
  return rows;
}

struct Row {
  std::string verdict, reason;
  int passed = -1, total = -1;
};

// The class: step 3's own kernel, mutated as students get it wrong.
std::map<std::string, std::string> build_class(const fs::path& dir) {
  const std::string good = conv::find_step("step3-local")->embedded_source();
  const std::string step2 = conv::find_step("step2-constant")->embedded_source();
  const std::string skeleton = read(fs::path(CLCONV_SOURCE_DIR) / "docs/exercises/step3-local.cl");
  REQUIRE(!skeleton.empty());
  const std::string store = "  output[y * out_width + x] = sum;";
  std::map<std::string, std::string> expected;  // student -> verdict (a regex)
  write(dir / "correct.cl", good);
  expected["correct"] = "pass";
  write(dir / "skeleton.cl", skeleton);
  expected["skeleton"] = "wrong";
  write(dir / "halo.cl", mutate(good, "r < filter_width", "r <= filter_width"));
  expected["halo"] = "wrong";
  write(dir / "no-barrier.cl", mutate(good, "barrier(CLK_LOCAL_MEM_FENCE);", ""));
  expected["no-barrier"] = "wrong|structure";
  // Far past the end: a crash without guard bands, a failed case with them.
  write(dir / "out-of-bounds.cl", mutate(good, store, "  output[y * out_width + x + (1 << 30)] = sum;"));
  expected["out-of-bounds"] = "crash|wrong";
  write(dir / "hangs.cl", mutate(good, "  float sum = 0.0f;",
                                 "  float sum = 0.0f;\n  for (int i = 0; i >= 0; i += (x < (1 << 30))) sum += 0.0f;"));
  expected["hangs"] = "timeout";
  write(dir / "no-compile.cl", mutate(good, "sum += filter[", "sum += filtre["));
  expected["no-compile"] = "build-error";
  write(dir / "empty.cl", "");
  expected["empty"] = "missing";
  write(dir / "renamed.cl", mutate(good, "void convolve(", "void convolve_tiled("));
  expected["renamed"] = "build-error";
  // Step 2's body in step 3's signature: right results, not step 3's idea.
  write(dir / "step2-body.cl",
        mutate(step2, "const int filter_width) {",
               "const int filter_width, __local float* tile, const int tile_width, const int tile_height) {"));
  expected["step2-body"] = "structure";
  // One folder per student works too.
  write(dir / "folder-student" / "step3-local.cl", good);
  expected["folder-student"] = "pass";
  write(dir / "handed-in-nothing" / "notes.txt", "I ran out of time\n");
  expected["handed-in-nothing"] = "missing";
  write(dir / "binary.cl", std::string("\x7f" "ELF\0\0\0", 7));
  expected["binary"] = "unreadable";
  write(dir / "README.txt", "not a submission\n");
  return expected;
}

}  // namespace

TEST_CASE("grade gives every kind of submission its verdict and a reason to act on", "[grade][class]") {
  const fs::path dir = fs::path(conv::test::scratch_dir()) / "class";
  const auto expected = build_class(dir);
  const std::string report = (fs::path(conv::test::scratch_dir()) / "grades.csv").string();
  const auto start = std::chrono::steady_clock::now();
  const auto r = conv::test::run_program(
      "grade", {"--step", "3", dir.string(), "--report", report, "--jobs", "2", "--no-oclgrind"}, {},
      CLCONV_GRADE_TIME_LIMIT);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  INFO("stderr:\n" << r.err << "\nstdout:\n" << r.out);
  REQUIRE_FALSE(r.timed_out);  // the whole class within the limit, the hanging kernel included
  WARN("graded " << expected.size() << " submissions in " << seconds << " s");
  REQUIRE(r.status == 0);

  const auto rows = parse_csv(read(report));
  REQUIRE(rows.size() == expected.size() + 1);
  CHECK(rows[0] == std::vector<std::string>{"student", "step", "verdict", "cases_passed",
                                            "cases_total", "reason", "seconds"});
  std::map<std::string, Row> grades;
  for (std::size_t i = 1; i < rows.size(); ++i) {
    REQUIRE(rows[i].size() == 7);
    CHECK(rows[i][1] == "step3-local");
    grades[rows[i][0]] = {rows[i][2], rows[i][5], std::stoi(rows[i][3]), std::stoi(rows[i][4])};
    CHECK_THAT(r.out, Contains("| " + rows[i][0] + " | step3-local | " + rows[i][2] + " |"));
    CHECK_THAT(r.err, Contains("] " + rows[i][0] + ": " + rows[i][2]));  // its progress line
  }
  for (const auto& [student, verdict] : expected) {
    INFO(student << ": " << grades[student].verdict << ", " << grades[student].reason);
    CHECK_THAT(grades[student].verdict, Matches(verdict));
    CHECK(grades[student].total == 7);
    if (grades[student].verdict != "pass") CHECK(!grades[student].reason.empty());
  }
  CHECK(grades["correct"].passed == 7);
  CHECK(grades["step2-body"].passed == 7);
  CHECK_THAT(grades["step2-body"].reason, Contains("structural") && Contains("barrier") && Contains("tile"));
  CHECK_THAT(grades["no-barrier"].reason, Contains("barrier"));
  // wrong: the case, the worst pixel and its error (or, where the harness
  // refused the result, the first pixel never written or not finite), the
  // seed that replays it.
  for (const char* s : {"halo", "skeleton"}) {
    INFO(s);
    CHECK_THAT(grades[s].reason, ((Contains("worst at (") && Contains("max abs error")) ||
                                  (Contains("the first at (") &&
                                   (Contains("never written") || Contains("NaN or infinite")))) &&
                                     Contains("wg ") && Contains("CLCONV_TEST_SEED="));
  }
  CHECK_THAT(grades["skeleton"].reason, Contains("structural check failed too"));
  CHECK_THAT(grades["no-compile"].reason, Contains("no-compile.cl:") && Contains("filtre"));
  CHECK_THAT(grades["renamed"].reason, Contains("'convolve'"));
  CHECK_THAT(grades["hangs"].reason, Contains("did not finish within"));
  const Row& oob = grades["out-of-bounds"];
  if (oob.verdict == "crash")
    CHECK_THAT(oob.reason, Contains("SIG") && Contains("oclgrind --data-races"));
  else
    CHECK_THAT(oob.reason, Matches(".*(past the end|out of bounds|outside).*"));
  CHECK_THAT(grades["empty"].reason, Contains("empty.cl"));
  CHECK_THAT(grades["handed-in-nothing"].reason, Contains("handed-in-nothing"));
  CHECK_THAT(grades["binary"].reason, Contains("binary.cl"));
  CHECK_THAT(r.err, Contains("skipped 1 entries"));
}

// Run by ctest only where Oclgrind is installed (label "oclgrind"): a crash
// is run again under Oclgrind, whose first report names the line.
TEST_CASE("a crashed case is run again under Oclgrind, which names the line", "[grade][oclgrind]") {
  const fs::path dir = fs::path(conv::test::scratch_dir()) / "oclgrind-class";
  const std::string good = conv::find_step("step3-local")->embedded_source();
  write(dir / "far-write.cl", mutate(good, "  output[y * out_width + x] = sum;",
                                     "  output[y * out_width + x + (1 << 30)] = sum;"));
  const auto r = conv::test::run_program("grade", {"--step", "3", dir.string(), "--case-timeout", "60"},
                                         {}, CLCONV_GRADE_TIME_LIMIT);
  INFO("stderr:\n" << r.err << "\nstdout:\n" << r.out);
  REQUIRE(r.status == 0);
  if (r.out.find("| far-write | step3-local | crash |") != std::string::npos)
    CHECK_THAT(r.out, Contains("Oclgrind: Invalid write") && Contains("of far-write.cl: output[") &&
                          Contains("(1 << 30)"));
  else  // guard bands may report it as a failed case
    CHECK_THAT(r.out, Contains("| far-write | step3-local | wrong |") &&
                          Matches("(?:.|\n)*(past the end|out of bounds|outside)(?:.|\n)*"));
}
