// The grader's parts without a device: reading the suite's XML, verdicts,
// the structural checks on every step's kernel and skeleton, the report;
// and build/bin/grade's command line.
#include "tests/catch.hpp"

#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <random>
#include <fstream>
#include <sstream>

#include "common/machinery/device_choice.hpp"
#include "common/machinery/guard.hpp"
#include "common/machinery/program_cache.hpp"
#include "common/machinery/reference.hpp"
#include "common/machinery/registry.hpp"
#include "common/machinery/report.hpp"
#include "common/machinery/settings.hpp"
#include "coursework/case_run.hpp"
#include "coursework/cases.hpp"
#include "coursework/sandbox.hpp"
#include "coursework/source_check.hpp"
#include "coursework/oclgrind.hpp"
#include "coursework/report.hpp"
#include "coursework/structure.hpp"
#include "coursework/submissions.hpp"
#include "tests/files.hpp"
#include "tests/process.hpp"

namespace fs = std::filesystem;
using conv::test::write_file;
using namespace conv::grade;
using conv::test::read_text;

namespace {

conv::ChildResult exited(int status, const std::string& out, const std::string& err = "") {
  conv::ChildResult r;
  r.status = status;
  r.out = out;
  r.err = err;
  return r;
}

void write_image(const fs::path& path, const conv::Image& image) {
  const auto bytes = conv::encode_pfm(image);
  std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()),
                                              static_cast<std::streamsize>(bytes.size()));
}

// The exact answer of a run, as a float image: what a correct kernel writes.
conv::Image correct_output(const Run& run) {
  const conv::Problem problem = conv::make_problem(run.image, run.filter, run.border);
  const conv::Reference ref = conv::reference_correlate(problem.padded, run.filter);
  conv::Image out(ref.width, ref.height);
  for (std::size_t i = 0; i < ref.value.size(); ++i) out.pixels[i] = static_cast<float>(ref.value[i]);
  return out;
}

}  // namespace

TEST_CASE("a case passes only on output images the grader checked, never on text or an exit status", "[grade]") {
  const std::uint32_t seed = std::random_device{}();
  INFO("seed " << seed);
  const auto step = conv::find_step("step3-local");
  const auto cases = make_cases(*step, seed);
  REQUIRE(cases.size() == 7);
  const Case& impulse = cases[5];
  CHECK(impulse.title == "an impulse reproduces the filter");
  CaseContext c;
  c.step = step.get();
  c.test = &impulse;
  c.kernel_file = "alice.cl";
  c.seed = seed;
  c.limit_s = 10;
  const fs::path out = fs::path(conv::test::scratch_dir()) / "judge";
  fs::create_directories(out);
  // The forged report of the issue: exit 0, Catch's success on stdout, no image.
  const CaseOutcome forged = judge(c, exited(0, "<OverallResult success=\"true\"/>"), out.string());
  CHECK(forged.verdict == Verdict::wrong);
  CHECK_THAT(forged.reason, ContainsText("without a result") && ContainsText("grade --seed " + std::to_string(seed)));
  // The right images, every one: a pass, whatever was printed.
  for (std::size_t k = 0; k < impulse.runs.size(); ++k)
    write_image(output_file(out.string(), k), correct_output(impulse.runs[k]));
  CHECK(judge(c, exited(0, ""), out.string()).verdict == Verdict::pass);
  // The right images, and then the process died: a crash, not a pass.
  conv::ChildResult killed;
  killed.signal = 11;
  const CaseOutcome crash = judge(c, killed, out.string());
  CHECK(crash.verdict == Verdict::crash);
  CHECK_THAT(crash.reason, ContainsText("SIGSEGV"));
  c.sandboxed = true;  // bubblewrap reports signal N as exit status 128 + N
  CHECK(judge(c, exited(128 + 9, ""), out.string()).verdict == Verdict::crash);
  // One weight off in the last run: wrong, with the run and the pixel.
  conv::Image off = correct_output(impulse.runs.back());
  off.pixels[off.pixels.size() / 2] += 0.5f;
  write_image(output_file(out.string(), impulse.runs.size() - 1), off);
  const CaseOutcome wrong = judge(c, exited(0, ""), out.string());
  CHECK(wrong.verdict == Verdict::wrong);
  CHECK_THAT(wrong.reason, ContainsText("\"an impulse reproduces the filter\": ") && ContainsText("differ from the filter around a single 1") && ContainsText("First differences: (") &&
                               ContainsText("wg 16x16"));
  // A symbolic link in place of an image is not followed.
  fs::remove(output_file(out.string(), 0));
  fs::create_symlink(output_file(out.string(), 1), output_file(out.string(), 0));
  CHECK(judge(c, exited(0, ""), out.string()).verdict == Verdict::wrong);
  fs::remove(output_file(out.string(), 0));
  // No image, the runner's build log instead: the compiler's first errors.
  write_file(build_note_file(out.string(), 0),
             "kernel alice.cl failed to build (CL_BUILD_PROGRAM_FAILURE, options: -D FILTER_WIDTH=3); build log:\n"
             "error: /root/.cache/pocl/kcache/tempfile_Ab12.cl:57:14: use of undeclared identifier 'filtre'\n"
             "/usr/share/pocl/include/opencl-c.h:12:1: note: TOPSECRET_header_text\n"
             "1 error generated.");
  const CaseOutcome build = judge(c, exited(0, ""), out.string());
  CHECK(build.verdict == Verdict::build_error);
  CHECK(build.reason == "error: alice.cl:57:14: use of undeclared identifier 'filtre' (build options: -D FILTER_WIDTH=3)");
  fs::remove(build_note_file(out.string(), 0));
  write_file(fault_note_file(out.string(), 0), "alice.cl: no kernel named 'convolve' (CL_INVALID_KERNEL_NAME)");
  const CaseOutcome name = judge(c, exited(1, ""), out.string());
  CHECK(name.verdict == Verdict::build_error);
  CHECK_THAT(name.reason, ContainsText("no kernel named 'convolve'"));
  c.limit_s = 12.5;
  conv::ChildResult late;
  late.timed_out = true;
  const CaseOutcome timeout = judge(c, late, out.string());
  CHECK(timeout.verdict == Verdict::timeout);
  CHECK_THAT(timeout.reason, ContainsText("did not finish within 12.5 s"));
}

TEST_CASE("the grader's cases are the suite's, by title and in order", "[grade]") {
  // (Catch's exit status here is the number of tests listed.)
#if CLCONV_CATCH2_MAJOR >= 3
  const auto r = conv::test::run_program("conformance_tests", {"--list-tests", "--verbosity", "quiet", "[step3-local]"});
#else
  const auto r = conv::test::run_program("conformance_tests", {"--list-test-names-only", "[step3-local]"});
#endif
  std::vector<std::string> listed;
  std::istringstream in(r.out);
  for (std::string line; std::getline(in, line);)
    if (line.rfind("step3-local: ", 0) == 0) listed.push_back(line.substr(13));
  std::vector<std::string> ours;
  for (const auto& c : make_cases(*conv::find_step("step3-local"), 1)) ours.push_back(c.title);
  REQUIRE(!listed.empty());
  CHECK(ours == listed);
}

TEST_CASE("compiler messages quote only the student's files", "[grade]") {
  const std::string log = "kernel x failed to build; build log:\n"
                          "helper.h:3:1: error: unknown type name 'flaot'\n"
                          "  flaot x;\n"
                          "/etc/secret.h:1:1: error: TOPSECRET_in_another_file\n"
                          "  TOPSECRET_line\n";
  const std::string shown = first_build_errors(log, "bob.cl", {"helper.h"});
  CHECK_THAT(shown, ContainsText("helper.h:3:1: error: unknown type name 'flaot'"));
  CHECK_THAT(shown, !ContainsText("TOPSECRET"));
}

TEST_CASE("inline assembly is found however a macro or a line splice spells it", "[grade][source]") {
  const std::string body = "__kernel void convolve(__global float* o) { o[0] = 1; }\n";
  CHECK(find_inline_assembly(body, "a.cl").empty());
  CHECK(find_inline_assembly("// asm in a comment\nconstant char* s = \"asm\";\n" + body, "a.cl").empty());
  for (const std::string& hidden : {
           std::string("__asm__ volatile(\"syscall\");\n"),
           std::string("#define X __asm__\n"),                    // a macro
           std::string("#if 0\nasm(\"nop\");\n#endif\n"),         // in any branch
           std::string("void f() { as\\\nm(\"nop\"); }\n"),       // a line splice
           std::string("void f() { __as\\  \n\\\nm__(\"\"); }\n"),  // splices with spaces
           std::string("void f() { as?\?/\nm(\"\"); }\n"),        // a trigraph splice
           std::string("#define CAT(a, b) a##b\n"),               // a paste of two arguments
           std::string("#define P(a) a ## s ## m\n"),             // a chain that can make asm
           std::string("#define Q(a) __as ## a\n")}) {
    INFO(hidden);
    CHECK_THAT(find_inline_assembly(hidden + body, "a.cl"), ContainsText("a.cl, line "));
  }
  // Step 6's pastes (float##n, vload##n) make no asm: every step's own kernel passes.
  for (const auto& step : conv::all_steps()) {
    INFO(step->name());
    CHECK(find_inline_assembly(step->embedded_source(), "k.cl").empty());
  }
  CHECK(logical_text("a\\\nb\nc") == "ab\n\nc");  // line numbers kept
}

TEST_CASE("includes: only files in the student's own folder, copied in, and the rest refused unread", "[grade][source]") {
  const fs::path dir = fs::path(conv::test::scratch_dir()) / "includes";
  write_file(dir / "secret.h", "TOPSECRET_text\n");
  write_file(dir / "ann" / "helper.h", "#define W 3\n");
  write_file(dir / "ann" / "sub" / "more.h", "#include \"../helper.h\"\n");
  write_file(dir / "ann" / "ok.cl", "#include \"helper.h\"\n__kernel void convolve() { int w = W; }\n");
  const CheckedSource ok = check_source((dir / "ann" / "ok.cl").string(), (dir / "ann").string());
  CHECK(ok.problem.empty());
  CHECK_THAT(ok.source, ContainsText("#define W 3") && ContainsText("#line 1 \"helper.h\"") && !ContainsText("#include"));
  const auto refused = [&](const std::string& text, const std::string& root, const std::string& why) {
    write_file(dir / "ann" / "k.cl", text);
    const CheckedSource c = check_source((dir / "ann" / "k.cl").string(), root);
    INFO(text);
    CHECK_THAT(c.problem, ContainsText(why) && !ContainsText("TOPSECRET"));
    CHECK(c.source.empty());
  };
  const std::string root = (dir / "ann").string();
  refused("#include \"" + (dir / "secret.h").string() + "\"\n", root, "absolute path");
  refused("#include \"../secret.h\"\n", root, "'..'");
  refused("#include \"sub/more.h\"\n", root, "'..'");  // nested, in the included file
  refused("#include <stdio.h>\n", root, "names no file in your folder");
  refused("#define F \"helper.h\"\n#include F\n", root, "computed #include");
  refused("#inc\\\nlude \"../secret.h\"\n", root, "'..'");  // a splice cannot hide it
  refused("#include \"helper.h\"\n", "", "one file");   // a file in the class folder includes nothing
  fs::create_symlink(dir / "secret.h", dir / "ann" / "link.h");
  refused("#include \"link.h\"\n", root, "symbolic link");
  fs::create_hard_link(dir / "secret.h", dir / "ann" / "hard.h");
  refused("#include \"hard.h\"\n", root, "hard link");
}

TEST_CASE("a kernel that is a hard link, or no regular file, is forbidden unread", "[grade][source]") {
  const fs::path dir = fs::path(conv::test::scratch_dir()) / "hard-links";
  write_file(dir / "outside" / "secret.cl", "TOPSECRET_text\n");
  write_file(dir / "class" / "ann" / "helper.cl", "__kernel void convolve() {}\n");
  fs::create_hard_link(dir / "outside" / "secret.cl", dir / "class" / "bob.cl");
  fs::create_directories(dir / "class" / "cat");
  fs::create_hard_link(dir / "outside" / "secret.cl", dir / "class" / "cat" / "convolve.cl");
  REQUIRE(mkfifo((dir / "class" / "dan.cl").c_str(), 0600) == 0);
  const auto subs = find_submissions((dir / "class").string(), "step3-local");
  REQUIRE(subs.size() == 4);
  CHECK(subs[0].problem_verdict == "");  // ann: one name, read
  for (std::size_t i = 1; i < 3; ++i) {
    INFO(subs[i].student);
    CHECK(subs[i].problem_verdict == "forbidden");
    CHECK_THAT(subs[i].problem, ContainsText("hard link") && !ContainsText("TOPSECRET"));
    CHECK(subs[i].source.empty());
  }
  CHECK(subs[3].problem_verdict == "forbidden");
  CHECK_THAT(subs[3].problem, ContainsText("not a regular file"));
  CHECK_THAT(check_source((dir / "class" / "bob.cl").string(), "").problem, ContainsText("hard link"));
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
      CHECK(check_structure(step->name(), read_text(skeleton)).size() == structure_checks(step->name()).size());
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
  CHECK_THAT(no_barrier[0], ContainsText("barrier"));
  const auto global_fence = check_structure("step3-local", head + copy + "  barrier(CLK_GLOBAL_MEM_FENCE);\n" + use);
  REQUIRE(global_fence.size() == 1);
  CHECK_THAT(global_fence[0], ContainsText("CLK_LOCAL_MEM_FENCE"));
  const auto unread = check_structure(
      "step3-local", head + copy + wait + "  output[get_global_id(0)] = input[get_global_id(0)];\n}\n");
  REQUIRE(unread.size() == 1);
  CHECK_THAT(unread[0], ContainsText("never reads it"));
  const auto vector = check_structure("step5-vector", head + copy + wait + use);
  REQUIRE(vector.size() == 1);
  CHECK_THAT(vector[0], ContainsText("float4"));
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
        "student,step,verdict,cases_passed,cases_total,reason,seconds,sandbox,kernel_ms,reference_ms,speed_ratio,speed_noise\n"
        "ann,step3-local,wrong,3,7,\"\"\"600x400\"\": wg 8x8, seed 1\",12.3,bwrap,,,,\n");
  // A field a spreadsheet would run as a formula gets a quote in front.
  Grade f = g;
  f.student = "=HYPERLINK(\"x\")";
  f.reason = "-2+3";
  CHECK(grades_csv("step3-local", {f}, false) ==
        "student,step,verdict,cases_passed,cases_total,reason,seconds,sandbox,kernel_ms,reference_ms,speed_ratio,speed_noise\n"
        "\"'=HYPERLINK(\"\"x\"\")\",step3-local,wrong,3,7,'-2+3,12.3,none,,,,\n");
  for (const char* lead : {"+", "@"}) {
    f.student = std::string(lead) + "x";
    CHECK_THAT(grades_csv("s", {f}), ContainsText("\n'" + f.student));
  }
  f.student = "\tx";  // escaped, so no blank first
  CHECK_THAT(grades_csv("s", {f}), ContainsText("\n\\tx,"));
  // Control characters (a terminal's escape sequences, line breaks) are
  // escaped in every report.
  Grade e = g;
  e.student = "ann\x1b]0;pwned\x07";
  e.reason = "line one\nline two\r\x7f";
  const std::string csv = grades_csv("step3-local", {e});
  std::ostringstream table;
  print_markdown(table, "Grades \x1b[2J", "step3-local", {e});
  const std::string progress = progress_line(e, 1, 1);
  for (const std::string& text : {csv, table.str(), progress}) {
    INFO(text);
    CHECK(text.find('\x1b') == std::string::npos);
    CHECK(text.find('\x07') == std::string::npos);
    CHECK(text.find('\x7f') == std::string::npos);
    CHECK(text.find('\r') == std::string::npos);
    CHECK_THAT(text, ContainsText("ann\\x1b]0;pwned\\x07"));
  }
  CHECK_THAT(csv, ContainsText(",line one\\nline two\\r\\x7f,"));
  CHECK_THAT(table.str(), ContainsText("Grades \\x1b[2J") && ContainsText("| line one\\nline two\\r\\x7f |"));
  g.reason = "a | b";
  std::ostringstream md;
  print_markdown(md, "Grades", "step3-local", {g});
  CHECK_THAT(md.str(), ContainsText("| ann | step3-local | wrong | 3/7 | 12.3 | a \\| b |"));
  CHECK(progress_line(g, 2, 9) == "[2/9] ann: wrong, 3/7 cases, 12.3 s");
}

TEST_CASE("grade's command line: mistakes exit 2, a grader that cannot run exits 1", "[grade][cli]") {
  const auto run = [](std::vector<std::string> args) { return conv::test::run_program("grade", args); };
  const auto help = run({"--help"});
  CHECK(help.status == 0);
  CHECK_THAT(help.out, ContainsText("--case-timeout") && ContainsText("5 x what the step's own kernel takes") &&
                           ContainsText("--jobs") && ContainsText("--report") && ContainsText("step3-local"));
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
  CHECK_THAT(empty.err, ContainsText("no submissions"));
}

// The sandbox itself, with a shell in place of the case runner: what a
// kernel that gets to make system calls could try.
TEST_CASE("a sandboxed case cannot signal the grader, nor read outside its folder", "[grade][sandbox]") {
  Sandbox box;
  box.bwrap = find_bwrap();
  INFO("bubblewrap is needed (Debian: apt-get install bubblewrap)");
  REQUIRE(!box.bwrap.empty());
  box.drop_to_nobody = geteuid() == 0;
  const fs::path dir = fs::path(conv::test::scratch_dir()) / "sandbox";
  fs::create_directories(dir / "inputs");
  // The sandbox's user passes through these folders to its own.
  for (const fs::path& p : {fs::path(conv::test::scratch_dir()), dir})
    fs::permissions(p, fs::perms::owner_all | fs::perms::group_exec | fs::perms::others_exec);
  box.inputs = (dir / "inputs").string();
  box.runner = (dir / "sh").string();
  fs::copy_file("/bin/sh", box.runner);
  fs::permissions(box.runner, fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec |
                                  fs::perms::others_read | fs::perms::others_exec);
  write_file(dir / "secret.txt", "TOPSECRET_other_student\n");
  const fs::path work = dir / "work";
  fs::create_directories(work);
  hand_over(box, work.string());
  const std::string grader = std::to_string(getpid()), parent = std::to_string(getppid());
  conv::ChildSpec spec = sandboxed(box, work.string(),
                             {"-c", "kill -STOP " + grader + "; kill -KILL " + grader + " " + parent +
                                        "; kill -STOP -1; kill -KILL -1; echo $$ > " + kWorkInside + "/pid; "
                                        "cat " + (dir / "secret.txt").string() + " /root/* > " + kWorkInside +
                                        "/read 2>&1; ls /tmp >> " + kWorkInside + "/read 2>&1; echo done > " +
                                        kWorkInside + "/ran"},
                             30);
  spec.out_path = (dir / "out").string();
  spec.err_path = (dir / "err").string();
  const conv::ChildResult r = conv::run_child(spec);
  INFO(r.err);
  CHECK_FALSE(r.timed_out);
  std::ifstream ran(work / "ran"), pid(work / "pid");
  std::string word;
  CHECK((ran >> word && word == "done"));  // it ran to the end, and this process is still here, not stopped
  int inside_pid = 0;
  CHECK((pid >> inside_pid && inside_pid < 10));  // its own PID namespace
  std::ifstream read_back(work / "read");
  std::stringstream text;
  text << read_back.rdbuf();
  CHECK_THAT(text.str(), !ContainsText("TOPSECRET"));
}

// What the sandbox bounds besides: /dev/shm's size, a read-only root and
// /etc, no user namespace inside it.
TEST_CASE("a sandboxed case gets a small /dev/shm, a read-only root and no nested user namespace",
          "[grade][sandbox]") {
  Sandbox box;
  box.bwrap = find_bwrap();
  REQUIRE(!box.bwrap.empty());
  CHECK(bwrap_lacks(box.bwrap).empty());
  box.drop_to_nobody = geteuid() == 0;
  const fs::path dir = fs::path(conv::test::scratch_dir()) / "sandbox-bounds";
  fs::create_directories(dir / "inputs");
  for (const fs::path& p : {fs::path(conv::test::scratch_dir()), dir})
    fs::permissions(p, fs::perms::owner_all | fs::perms::group_exec | fs::perms::others_exec);
  box.inputs = (dir / "inputs").string();
  box.runner = (dir / "sh").string();
  fs::copy_file("/bin/sh", box.runner, fs::copy_options::overwrite_existing);
  fs::permissions(box.runner, fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec |
                                  fs::perms::others_read | fs::perms::others_exec);
  const fs::path work = dir / "work";
  fs::create_directories(work);
  hand_over(box, work.string());
  const std::string w = kWorkInside;
  conv::ChildSpec spec = sandboxed(
      box, work.string(),
      {"-c", "head -c 67108864 /dev/zero > /dev/shm/big 2>/dev/null; echo shm $(wc -c < /dev/shm/big) > " + w +
                 "/result; rm -f /dev/shm/big; echo x > /etc/x 2>/dev/null && echo etc written >> " + w +
                 "/result; echo x > /x 2>/dev/null && echo root written >> " + w +
                 "/result; mkdir /y 2>/dev/null && echo root mkdir >> " + w +
                 "/result; echo x > /dev/x 2>/dev/null && echo dev written >> " + w +
                 "/result; unshare -Ur true 2>/dev/null && echo userns made >> " + w +
                 "/result; echo x > " + w + "/own && echo own written >> " + w + "/result"},
      30);
  spec.out_path = (dir / "out").string();
  spec.err_path = (dir / "err").string();
  const conv::ChildResult r = conv::run_child(spec);
  INFO(read_text((dir / "err").string()));
  CHECK_FALSE(r.timed_out);
  const std::string result = read_text((work / "result").string());
  CHECK(result.find("shm ") == 0);
  CHECK(std::stoull(result.substr(4)) <= (std::uint64_t{16} << 20));  // not 64 MiB
  CHECK_THAT(result, !ContainsText("etc written"));
  CHECK_THAT(result, !ContainsText("root"));
  CHECK_THAT(result, !ContainsText("dev written"));
  CHECK_THAT(result, !ContainsText("userns made"));
  CHECK_THAT(result, ContainsText("own written"));  // its own folder stays writable
}

TEST_CASE("a bubblewrap without the options the sandbox uses is named in one line", "[grade][sandbox]") {
  const fs::path fake = fs::path(conv::test::scratch_dir()) / "old-bwrap";
  write_file(fake, "#!/bin/sh\necho 'usage: bwrap [OPTIONS...]\n    --unshare-user  Create\n    --size BYTES\n"
                   "    --remount-ro DEST'\n");
  fs::permissions(fake, fs::perms::owner_all);
  const std::string why = bwrap_lacks(fake.string());
  CHECK_THAT(why, ContainsText("lacks --disable-userns"));
  CHECK(why.find('\n') == std::string::npos);
}
