// The grader's parts without a device: reading the suite's XML, verdicts,
// the structural checks on every step's kernel and skeleton, the report;
// and build/bin/grade's command line.
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>

#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "common/registry.hpp"
#include "coursework/case_run.hpp"
#include "coursework/oclgrind.hpp"
#include "coursework/report.hpp"
#include "coursework/structure.hpp"
#include "tests/files.hpp"
#include "tests/process.hpp"

namespace fs = std::filesystem;
using namespace conv::grade;
using Catch::Matchers::Contains;

namespace {

std::string read(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

conv::grade::ChildResult exited(int status, const std::string& out, const std::string& err = "") {
  conv::grade::ChildResult r;
  r.status = status;
  r.out = out;
  r.err = err;
  return r;
}

const char* kCheckFailed = R"(<?xml version="1.0" encoding="UTF-8"?>
<Catch name="conformance_tests">
  <Group name="conformance_tests">
    <TestCase name="step3-local: 1919x1079" tags="[conformance][step3-local]">
      <Info>
        step3-local: 1919x1079, filter random:13, border zero, wg 8x32, variant default, kernel file /home/s/alice.cl; seed 42 (rerun with CLCONV_TEST_SEED=42)
      </Info>
      <Info>
        max abs error 0.5, max rel error 0.1; 3 pixel(s) over tolerance, worst at (7, 1078)
      </Info>
      <Expression success="false" type="CHECK" filename="conformance.cpp" line="95">
        <Original>
          cmp.passed()
        </Original>
        <Expanded>
          false
        </Expanded>
      </Expression>
      <OverallResult success="false"/>
    </TestCase>
  </Group>
</Catch>)";

}  // namespace

TEST_CASE("a failed check is wrong: the case, the worst pixel, the seed", "[grade]") {
  const CatchReport report = parse_catch_xml(kCheckFailed);
  CHECK(report.finished);
  CHECK_FALSE(report.success);
  REQUIRE(report.info.size() == 2);
  const CaseOutcome o = classify(exited(1, kCheckFailed), "1919x1079", "alice.cl", 10);
  CHECK(o.verdict == Verdict::wrong);
  CHECK_THAT(o.reason, Contains("\"1919x1079\": 1919x1079, filter random:13, border zero, wg 8x32"));
  CHECK_THAT(o.reason, Contains("worst at (7, 1078)") && Contains("CLCONV_TEST_SEED=42"));
  CHECK_THAT(o.reason, !Contains("/home/s/alice.cl") && !Contains("cmp.passed"));
}

TEST_CASE("exceptions: build errors, a missing kernel name, a run that failed", "[grade]") {
  const auto xml = [](const std::string& message) {
    return "<TestCase name=\"x\"><Exception filename=\"c.cpp\" line=\"1\">\n        " + message +
           "\n      </Exception><OverallResult success=\"false\"/></TestCase>";
  };
  const CaseOutcome build = classify(
      exited(1, xml("kernel /s/bob.cl failed to build (CL_BUILD_PROGRAM_FAILURE, options: -D FILTER_WIDTH=3); build log:\n"
                    "error: /root/.cache/pocl/kcache/tempfile_Ab12.cl:57:14: use of undeclared identifier &apos;filtre&apos;\n"
                    "1 error generated.")),
      "x", "bob.cl", 10);
  CHECK(build.verdict == Verdict::build_error);
  CHECK(build.reason == "error: bob.cl:57:14: use of undeclared identifier 'filtre' (build options: -D FILTER_WIDTH=3)");
  const CaseOutcome name = classify(
      exited(1, xml("/s/bob.cl: no kernel named &apos;convolve&apos; (CL_INVALID_KERNEL_NAME)")), "x", "bob.cl", 10);
  CHECK(name.verdict == Verdict::build_error);
  CHECK_THAT(name.reason, Contains("no kernel named 'convolve'"));
  // The harness's guard bands report an out-of-bounds write as a failed run.
  const CaseOutcome guard = classify(
      exited(1, xml("wrote past the end of the output at work-item (17, 3)")), "x", "bob.cl", 10);
  CHECK(guard.verdict == Verdict::wrong);
  CHECK_THAT(guard.reason, Contains("wrote past the end of the output at work-item (17, 3)"));
}

TEST_CASE("signals, Catch's fatal conditions and sanitizers are crashes, a time-out is not", "[grade]") {
  conv::grade::ChildResult killed;
  killed.signal = 11;
  const CaseOutcome crash = classify(killed, "impulse", "c.cl", 10);
  CHECK(crash.verdict == Verdict::crash);
  CHECK_THAT(crash.reason, Contains("SIGSEGV") && Contains("\"impulse\""));
  const CaseOutcome fatal = classify(
      exited(1, "<FatalErrorCondition filename=\"c\" line=\"1\">\n SIGBUS - Bus error signal\n</FatalErrorCondition>"),
      "impulse", "c.cl", 10);
  CHECK(fatal.verdict == Verdict::crash);
  CHECK_THAT(fatal.reason, Contains("SIGBUS"));
  const CaseOutcome asan = classify(exited(1, "", "==1==ERROR: AddressSanitizer: heap-buffer-overflow on address 0x6 (pc 0x5 bp 0x4 sp 0x3 T1)"),
                                    "impulse", "c.cl", 10);
  CHECK(asan.verdict == Verdict::crash);
  CHECK_THAT(asan.reason, Contains("AddressSanitizer: heap-buffer-overflow on address 0x6") && !Contains("(pc "));
  const CaseOutcome silent = classify(exited(3, "", "free(): invalid next size\n"), "impulse", "c.cl", 10);
  CHECK(silent.verdict == Verdict::crash);
  CHECK_THAT(silent.reason, Contains("status 3") && Contains("invalid next size"));
  conv::grade::ChildResult late;
  late.timed_out = true;
  const CaseOutcome timeout = classify(late, "1919x1079", "c.cl", 12.5);
  CHECK(timeout.verdict == Verdict::timeout);
  CHECK_THAT(timeout.reason, Contains("\"1919x1079\" did not finish within 12.5 s"));
  const CaseOutcome pass = classify(exited(0, "<OverallResult success=\"true\"/>"), "x", "c.cl", 1);
  CHECK(pass.verdict == Verdict::pass);
}

TEST_CASE("Oclgrind's first report, in one line, names the student's file and line", "[grade]") {
  const std::string log =
      "\nInvalid write of size 4 at global memory address 0x3000100000000\n"
      "\tKernel: convolve\n\tEntity: Global(3,0,0) Local(3,0,0) Group(0,0,0)\n"
      "\t  store float %sum.0, float addrspace(1)* %arrayidx86, align 4\n"
      "\tAt line 61 (column 41) of input.cl:\n\t  output[i + (1 << 30)] = sum;\n\n"
      "Oclgrind: 1 errors generated - suppressing further errors\n";
  CHECK(summarize_oclgrind_log(log, "bob.cl") ==
        "Invalid write of size 4 at global memory, line 61 of bob.cl: output[i + (1 << 30)] = sum; "
        "(work-item Global(3,0,0))");
  CHECK(summarize_oclgrind_log("", "bob.cl").empty());
  // $OCLGRIND names the binary; one that is not there means "not installed".
  setenv("OCLGRIND", "/no/such/oclgrind", 1);
  CHECK(find_oclgrind().empty());
  unsetenv("OCLGRIND");
  CaseCommand c{"/b/conformance_tests", "step3-local: sizes 1x1, 3x2", {{"CLCONV_KERNEL_STEP3", "/s/my kernel.cl"}}};
  CHECK(oclgrind_command(c) ==
        "CLCONV_PLATFORM=Oclgrind CLCONV_KERNEL_STEP3='/s/my kernel.cl' oclgrind --data-races "
        "/b/conformance_tests 'step3-local: sizes 1x1\\, 3x2'");
}

TEST_CASE("every step's own kernel passes its structural checks, each skeleton fails them", "[grade][structure]") {
  for (const auto& step : conv::all_steps()) {
    INFO(step->name());
    CHECK(check_structure(step->name(), step->embedded_source()).empty());
    const fs::path skeleton = fs::path(CLCONV_SOURCE_DIR) / "docs/exercises" / (step->name() + ".cl");
    if (!structure_checks(step->name()).empty() && fs::exists(skeleton))
      CHECK(check_structure(step->name(), read(skeleton)).size() == structure_checks(step->name()).size());
  }
  CHECK(structure_checks("step3-local").size() == 2);
  CHECK(structure_checks("step5-vector").size() == 3);
  CHECK(structure_checks("step6-multioutput").size() == 4);
}

TEST_CASE("the structural checks read code, not comments, and see what is missing", "[grade][structure]") {
  const std::string head =
      "__kernel void convolve(__global const float* input, __constant float* filter,\n"
      "  __global float* output, const int in_pitch, const int out_width, const int out_height,\n"
      "  const int filter_width, __local float* cache, const int tile_width, const int tile_height) {\n";
  const std::string copy = "  cache[get_local_id(0)] = input[get_global_id(0)];\n";
  const std::string wait = "  barrier(CLK_LOCAL_MEM_FENCE);\n";
  const std::string use = "  output[get_global_id(0)] = cache[get_local_id(0)] * filter[0];\n}\n";
  CHECK(check_structure("step3-local", head + copy + wait + use).empty());  // any name for the tile
  const auto no_barrier = check_structure("step3-local", head + copy + "  // barrier(CLK_LOCAL_MEM_FENCE);\n" + use);
  REQUIRE(no_barrier.size() == 1);
  CHECK_THAT(no_barrier[0], Contains("barrier"));
  const auto global_fence = check_structure("step3-local", head + copy + "  barrier(CLK_GLOBAL_MEM_FENCE);\n" + use);
  REQUIRE(global_fence.size() == 1);
  CHECK_THAT(global_fence[0], Contains("CLK_LOCAL_MEM_FENCE"));
  const auto unread = check_structure(
      "step3-local", head + copy + wait + "  output[get_global_id(0)] = input[get_global_id(0)];\n}\n");
  REQUIRE(unread.size() == 1);
  CHECK_THAT(unread[0], Contains("never reads it"));
  const auto vector = check_structure("step5-vector", head + copy + wait + use);
  REQUIRE(vector.size() == 1);
  CHECK_THAT(vector[0], Contains("float4"));
  CHECK(check_structure("step5-vector",
                        head + "  vstore4(vload4(0, input), 0, cache);\n" + wait + use).empty());
  CHECK(check_structure("step3-local", "__kernel void other(__global float* x) { x[0] = 1; }").empty());
  CHECK(check_structure("step2-constant", head + use).empty());  // a step without structural checks
  CHECK(strip_comments("a /* b */ c // d\ne") == "a         c     \ne");
}

TEST_CASE("the CSV report has the promised columns and quotes what needs it", "[grade]") {
  Grade g;
  g.student = "ann";
  g.verdict = Verdict::wrong;
  g.reason = "\"600x400\": wg 8x8, seed 1";
  g.cases_passed = 3;
  g.cases_total = 7;
  g.seconds = 12.34;
  CHECK(grades_csv("step3-local", {g}) ==
        "student,step,verdict,cases_passed,cases_total,reason,seconds\n"
        "ann,step3-local,wrong,3,7,\"\"\"600x400\"\": wg 8x8, seed 1\",12.3\n");
  g.reason = "a | b";
  std::ostringstream md;
  print_markdown(md, "Grades", "step3-local", {g});
  CHECK_THAT(md.str(), Contains("| ann | step3-local | wrong | 3/7 | 12.3 | a \\| b |"));
  CHECK(progress_line(g, 2, 9) == "[2/9] ann: wrong, 3/7 cases, 12.3 s");
}

TEST_CASE("grade's command line: mistakes exit 2, a grader that cannot run exits 1", "[grade][cli]") {
  const auto run = [](std::vector<std::string> args) { return conv::test::run_program("grade", args); };
  const auto help = run({"--help"});
  CHECK(help.status == 0);
  CHECK_THAT(help.out, Contains("--case-timeout") && Contains("5 x what the step's own kernel takes") &&
                           Contains("--jobs") && Contains("--report") && Contains("step3-local"));
  const auto list = run({"--list-devices"});
  CHECK(list.status == 0);
  const fs::path folder = fs::path(conv::test::scratch_dir()) / "cli";
  fs::create_directories(folder);
  for (const auto& args : std::vector<std::vector<std::string>>{
           {},
           {folder.string()},
           {"--step", "99", folder.string()},
           {"--step", "3", (folder / "no-such-folder").string()},
           {"--step", "3", folder.string(), "--jobs", "0"},
           {"--step", "3", folder.string(), "--case-timeout", "-1"},
           {"--step", "3", folder.string(), "--report", (folder / "no-dir" / "g.csv").string()},
           {"--step", "3", folder.string(), "--bogus"}}) {
    const auto r = run(args);
    INFO(r.err);
    CHECK(r.status == 2);
    CHECK(r.err_lines() == 1);
  }
  const auto empty = run({"--step", "3", folder.string()});  // nothing to grade
  CHECK(empty.status == 1);
  CHECK_THAT(empty.err, Contains("no submissions"));
}
