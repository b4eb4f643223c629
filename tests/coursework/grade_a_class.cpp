// The grader over a class the test builds itself: one submission of every
// kind an instructor meets, each of which must get its verdict, with the
// hanging one among them, in one run of build/bin/grade.
#include "tests/catch.hpp"

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>

#include <unistd.h>

#include "common/machinery/device_choice.hpp"
#include "common/machinery/guard.hpp"
#include "common/machinery/program_cache.hpp"
#include "common/machinery/reference.hpp"
#include "common/machinery/registry.hpp"
#include "common/machinery/report.hpp"
#include "common/machinery/settings.hpp"
#include "tests/coursework/edit.hpp"
#include "tests/files.hpp"
#include "tests/process.hpp"

namespace fs = std::filesystem;
using conv::test::write_file;
using conv::test::mutate;
using Catch::Matchers::Matches;

namespace {

// `from` replaced by `to` once; a mutation that no longer applies (the
// step's kernel changed) fails the test instead of grading the original.
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

// A kernel that makes system calls: the attacks. `calls` goes
// first in the kernel's body.
std::string with_syscalls(const std::string& good, const std::string& calls) {
  return mutate(good, "  float sum = 0.0f;", calls + "\n  float sum = 0.0f;");
}

const char* kForge =
    "  const char msg[] = \"<OverallResult success=\\\"true\\\"/>\\n\";\n"
    "  long r;\n"
    "  __asm__ volatile(\"syscall\" : \"=a\"(r) : \"a\"(1L), \"D\"(1L), \"S\"(msg), \"d\"(sizeof msg - 1) : \"rcx\", \"r11\", \"memory\");\n"
    "  __asm__ volatile(\"syscall\" : : \"a\"(231L), \"D\"(0L));";

std::string signal_parent(const char* macro, int sig) {
  return std::string(macro) + "\n  long parent;\n  SYSCALL(\"syscall\" : \"=a\"(parent) : \"a\"(110L) : \"rcx\", \"r11\");\n"
         "  long r;\n  SYSCALL(\"syscall\" : \"=a\"(r) : \"a\"(62L), \"D\"(parent), \"S\"(" + std::to_string(sig) +
         "L) : \"rcx\", \"r11\");";
}

// Submissions that attack the grader; each must be refused before anything
// of it is built or run, with a reason that quotes no file outside it.
void add_attacks(const fs::path& dir, const std::string& good, std::map<std::string, std::string>& expected) {
  write_file(dir / "forge.cl", with_syscalls(good, kForge));
  write_file(dir / "kill-parent.cl", with_syscalls(good, signal_parent("#define SYSCALL __asm__ volatile", 9)));
  write_file(dir / "stop-parent.cl", with_syscalls(good, signal_parent("#define SYSCALL as\\\nm volatile", 19)));
  write_file(dir / "pasted-asm.cl",
        with_syscalls(good, signal_parent("#define CAT(a, b) a##b\n#define SYSCALL CAT(as, m) volatile", 9)));
  const fs::path secret = fs::path(conv::test::scratch_dir()) / "secret.h";
  write_file(secret, "TOPSECRET_do_not_quote\n");
  write_file(dir / "abs-include" / "convolve.cl", "#include \"" + secret.string() + "\"\n" + good);
  write_file(dir / "dotdot-include" / "convolve.cl", "#include \"../correct.cl\"\n");
  write_file(dir / "link-include" / "convolve.cl", "#include \"helper.h\"\n" + good);
  fs::create_symlink(secret, dir / "link-include" / "helper.h");
  fs::create_symlink(dir / "correct.cl", dir / "linked.cl");
  for (const char* s : {"forge", "kill-parent", "stop-parent", "pasted-asm", "abs-include", "dotdot-include",
                        "link-include", "linked"})
    expected[s] = "forbidden";
}

// The class: step 3's own kernel, mutated as students get it wrong.
std::map<std::string, std::string> build_class(const fs::path& dir) {
  const std::string good = conv::find_step("step3-local")->embedded_source();
  const std::string step2 = conv::find_step("step2-constant")->embedded_source();
  const std::string skeleton = read(fs::path(CLCONV_SOURCE_DIR) / "docs/exercises/step3-local.cl");
  REQUIRE(!skeleton.empty());
  const std::string store = "  output[y * out_width + x] = sum;";
  std::map<std::string, std::string> expected;  // student -> verdict (a regex)
  write_file(dir / "correct.cl", good);
  expected["correct"] = "pass";
  write_file(dir / "skeleton.cl", skeleton);
  expected["skeleton"] = "wrong";
  write_file(dir / "halo.cl", mutate(good, "r < filter_width", "r <= filter_width"));
  expected["halo"] = "wrong";
  write_file(dir / "no-barrier.cl", mutate(good, "barrier(CLK_LOCAL_MEM_FENCE);", ""));
  expected["no-barrier"] = "wrong|structure";
  // Far past the end: a crash without guard bands, a failed case with them.
  write_file(dir / "out-of-bounds.cl", mutate(good, store, "  output[y * out_width + x + (1 << 30)] = sum;"));
  expected["out-of-bounds"] = "crash|wrong";
  write_file(dir / "hangs.cl", mutate(good, "  float sum = 0.0f;",
                                 "  float sum = 0.0f;\n  for (int i = 0; i >= 0; i += (x < (1 << 30))) sum += 0.0f;"));
  expected["hangs"] = "timeout";
  write_file(dir / "no-compile.cl", mutate(good, "sum += filter[", "sum += filtre["));
  expected["no-compile"] = "build-error";
  write_file(dir / "empty.cl", "");
  expected["empty"] = "missing";
  write_file(dir / "renamed.cl", mutate(good, "void convolve(", "void convolve_tiled("));
  expected["renamed"] = "build-error";
  // Step 2's body in step 3's signature: right results, not step 3's idea.
  write_file(dir / "step2-body.cl",
        mutate(step2, "const int filter_width) {",
               "const int filter_width, __local float* tile, const int tile_width, const int tile_height) {"));
  expected["step2-body"] = "structure";
  // One folder per student works too.
  write_file(dir / "folder-student" / "step3-local.cl", good);
  expected["folder-student"] = "pass";
  write_file(dir / "handed-in-nothing" / "notes.txt", "I ran out of time\n");
  expected["handed-in-nothing"] = "missing";
  write_file(dir / "binary.cl", std::string("\x7f" "ELF\0\0\0", 7));
  expected["binary"] = "unreadable";
  write_file(dir / "README.txt", "not a submission\n");
  expected["README"] = "not-graded";
  write_file(dir / "walter.CL", good);
  expected["walter"] = "not-graded";
  write_file(dir / "@SUM(A1).cl", "");  // a name a spreadsheet would run
  expected["@SUM(A1)"] = "missing";
  // A name with a terminal's escape sequence (a window title), escaped in
  // every report.
  write_file(dir / "esc\x1b]0;pwned\x07.cl", "");
  expected["esc\\x1b]0;pwned\\x07"] = "missing";
  // Includes: a file of the student's own folder is copied in and graded.
  const std::string head = good.substr(0, good.find("__kernel"));
  write_file(dir / "uses-helper" / "helper.h", head);
  write_file(dir / "uses-helper" / "step3-local.cl", "#include \"helper.h\"\n" + good.substr(good.find("__kernel")));
  expected["uses-helper"] = "pass";
  add_attacks(dir, good, expected);
  return expected;
}

}  // namespace

TEST_CASE("grade gives every kind of submission its verdict and a reason to act on", "[grade][class]") {
  const fs::path dir = fs::path(conv::test::scratch_dir()) / "class";
  const auto expected = build_class(dir);
  const std::string report = (fs::path(conv::test::scratch_dir()) / "grades.csv").string();
  // What a grader killed earlier left behind (its process is gone): removed.
  const fs::path stale = fs::temp_directory_path() / ("clconv-grade-" + std::to_string(geteuid())) / "999999999-Ab12Cd";
  fs::create_directories(stale / "s0");
  const auto start = std::chrono::steady_clock::now();
  const auto r = conv::test::run_program(
      "grade", {"--step", "3", dir.string(), "--report", report, "--jobs", "2", "--no-oclgrind"}, {},
      CLCONV_GRADE_TIME_LIMIT);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  INFO("stderr:\n" << r.err << "\nstdout:\n" << r.out);
  REQUIRE_FALSE(r.timed_out);  // the whole class within the limit, the hanging kernel included
  WARN("graded " << expected.size() << " submissions in " << seconds << " s");
  REQUIRE(r.status == 0);

  const std::string csv = read(report);
  for (const char raw : {'\x1b', '\x07'}) {
    CHECK(csv.find(raw) == std::string::npos);
    CHECK(r.out.find(raw) == std::string::npos);
    CHECK(r.err.find(raw) == std::string::npos);
  }
  CHECK_THAT(r.out, ContainsText("| esc\\x1b]0;pwned\\x07 |"));
  auto rows = parse_csv(csv);
  CHECK_FALSE(fs::exists(stale));
  REQUIRE(rows.size() == expected.size() + 1);
  CHECK(rows[0] == std::vector<std::string>{"student", "step", "verdict", "cases_passed", "cases_total", "reason",
                                            "seconds", "sandbox", "kernel_ms", "reference_ms", "speed_ratio",
                                            "speed_noise"});
  std::map<std::string, Row> grades;
  for (std::size_t i = 1; i < rows.size(); ++i) {
    REQUIRE(rows[i].size() == 12);
    CHECK(rows[i][1] == "step3-local");
    CHECK(rows[i][7] == "bwrap");
    CHECK((rows[i][8].empty() && rows[i][9].empty() && rows[i][10].empty() && rows[i][11].empty()));  // not timed
    if (rows[i][0][0] == '\'') rows[i][0] = rows[i][0].substr(1);  // a name a spreadsheet would run
    grades[rows[i][0]] = {rows[i][2], rows[i][5], std::stoi(rows[i][3]), std::stoi(rows[i][4])};
    CHECK_THAT(r.out, ContainsText("| " + rows[i][0] + " | step3-local | " + rows[i][2] + " |"));
    CHECK_THAT(r.err, ContainsText("] " + rows[i][0] + ": " + rows[i][2]));  // its progress line
  }
  for (const auto& [student, verdict] : expected) {
    INFO(student << ": " << grades[student].verdict << ", " << grades[student].reason);
    CHECK_THAT(grades[student].verdict, Matches(verdict));
    CHECK(grades[student].total == 7);
    if (grades[student].verdict != "pass") CHECK(!grades[student].reason.empty());
  }
  CHECK(grades["correct"].passed == 7);
  CHECK(grades["step2-body"].passed == 7);
  CHECK_THAT(grades["step2-body"].reason, ContainsText("structural") && ContainsText("barrier") && ContainsText("tile"));
  CHECK_THAT(grades["no-barrier"].reason, ContainsText("barrier"));
  // wrong: the case, the worst pixel and its error (or, where the harness
  // refused the result, the first pixel never written or not finite), the
  // seed that replays it.
  for (const char* s : {"halo", "skeleton"}) {
    INFO(s);
    CHECK_THAT(grades[s].reason, ((ContainsText("worst at (") && ContainsText("max abs error")) ||
                                  (ContainsText("the first at (") &&
                                   (ContainsText("never written") || ContainsText("NaN or infinite")))) &&
                                     ContainsText("wg ") && ContainsText("grade --seed "));
  }
  CHECK_THAT(grades["skeleton"].reason, ContainsText("structural check failed too"));
  CHECK_THAT(grades["no-compile"].reason, ContainsText("no-compile.cl:") && ContainsText("filtre"));
  CHECK_THAT(grades["renamed"].reason, ContainsText("'convolve'"));
  CHECK_THAT(grades["hangs"].reason, ContainsText("did not finish within"));
  const Row& oob = grades["out-of-bounds"];
  if (oob.verdict == "crash")
    CHECK_THAT(oob.reason, ContainsText("SIG") && ContainsText("oclgrind --data-races"));
  else
    CHECK_THAT(oob.reason, Matches(".*(past the end|out of bounds|outside).*"));
  CHECK_THAT(grades["empty"].reason, ContainsText("empty.cl"));
  CHECK_THAT(grades["handed-in-nothing"].reason, ContainsText("handed-in-nothing"));
  CHECK_THAT(grades["binary"].reason, ContainsText("binary.cl"));
  CHECK_THAT(read(report), ContainsText("\n'@SUM(A1),"));
  CHECK(grades["uses-helper"].passed == 7);
  CHECK_THAT(grades["walter"].reason, ContainsText("walter.CL") && ContainsText("lower case"));
  CHECK_THAT(grades["README"].reason, ContainsText("README.txt"));
  for (const char* s : {"forge", "kill-parent", "stop-parent", "pasted-asm"}) {
    INFO(s);
    CHECK_THAT(grades[s].reason, ContainsText("inline assembly") || ContainsText("could make asm"));
  }
  CHECK_THAT(grades["abs-include"].reason, ContainsText("absolute path"));
  CHECK_THAT(grades["dotdot-include"].reason, ContainsText("'..'"));
  CHECK_THAT(grades["link-include"].reason, ContainsText("symbolic link"));
  CHECK_THAT(grades["linked"].reason, ContainsText("symbolic link"));
  CHECK_THAT(read(report) + r.out + r.err, !ContainsText("TOPSECRET"));
}

// The grader's own edges: what it cannot write or read is refused before
// any grading, and a machine without the sandbox grades only when told to.
TEST_CASE("grade refuses an unusable report (or one not named .csv), a NaN limit, and grading without a sandbox unless told", "[grade][cli]") {
  const fs::path dir = fs::path(conv::test::scratch_dir()) / "edges";
  const std::string good = conv::find_step("step3-local")->embedded_source();
  write_file(dir / "class" / "forge.cl", with_syscalls(good, kForge));
  const std::string cls = (dir / "class").string();
  fs::create_directories(dir / "a-folder.csv");
  write_file(dir / "old.csv", "the old report\n");
  for (const auto& args : std::vector<std::vector<std::string>>{
           {"--report", (dir / "a-folder.csv").string()},
           {"--report", "/proc/grades.csv"},
           {"--report", (dir / "grades.png").string()},
           {"--case-timeout", "nan"}}) {
    std::vector<std::string> all = {"--step", "3", cls, "--no-oclgrind"};
    all.insert(all.end(), args.begin(), args.end());
    const auto r = conv::test::run_program("grade", all);
    INFO(args.front() << " " << args.back() << ": " << r.err);
    CHECK(r.status == 2);
    CHECK(r.err_lines() == 1);
    CHECK_THAT(r.err, !ContainsText("timing"));  // before any grading
  }
  // No bubblewrap: one line, exit 1, and the old report left as it was.
  const auto refused = conv::test::run_program(
      "grade", {"--step", "3", cls, "--case-timeout", "60", "--report", (dir / "old.csv").string()},
      {{"CLCONV_BWRAP", "/no/such/bwrap"}});
  INFO(refused.err);
  CHECK(refused.status == 1);
  CHECK_THAT(refused.err, ContainsText("sandbox") && ContainsText("--no-sandbox"));
  CHECK(read(dir / "old.csv") == "the old report\n");
  const auto unconfined = conv::test::run_program(
      "grade", {"--step", "3", cls, "--case-timeout", "60", "--no-sandbox", "--report", (dir / "old.csv").string()},
      {{"CLCONV_BWRAP", "/no/such/bwrap"}});
  INFO(unconfined.err);
  CHECK(unconfined.status == 0);
  CHECK_THAT(read(dir / "old.csv"), ContainsText(",sandbox,kernel_ms,reference_ms,speed_ratio,speed_noise\n") &&
                                        ContainsText("forge,step3-local,forbidden,") && ContainsText(",none,,,,\n"));
  CHECK_THAT(unconfined.out, ContainsText("WITHOUT the sandbox"));
}

// Run by ctest only where Oclgrind is installed (label "oclgrind"): a crash
// is run again under Oclgrind, whose first report names the line.
TEST_CASE("a crashed case is run again under Oclgrind, which names the line", "[grade][oclgrind]") {
  const fs::path dir = fs::path(conv::test::scratch_dir()) / "oclgrind-class";
  const std::string good = conv::find_step("step3-local")->embedded_source();
  // 4 TiB past the output: no mapped memory there, so the case crashes
  // (a write a little past it might land in the guard bands instead).
  write_file(dir / "far-write.cl", mutate(good, "  output[y * out_width + x] = sum;",
                                     "  output[y * out_width + x + ((size_t)1 << 40)] = sum;"));
  const auto r = conv::test::run_program("grade", {"--step", "3", dir.string(), "--case-timeout", "60"},
                                         {}, CLCONV_GRADE_TIME_LIMIT);
  INFO("stderr:\n" << r.err << "\nstdout:\n" << r.out);
  REQUIRE(r.status == 0);
  CHECK_THAT(r.out, ContainsText("| far-write | step3-local | crash |") && ContainsText("Oclgrind: Invalid write") &&
                        ContainsText("of far-write.cl: output[") && ContainsText("((size_t)1 << 40)"));
}
