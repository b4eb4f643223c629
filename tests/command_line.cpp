// The executables as a user meets them: every error is one line on stderr
// and exit status 1 (2 for usage), never a crash; results match the serial
// reference; --help tells the truth; nothing half-written is left behind.
#include "tests/catch.hpp"


#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <random>
#include <sstream>
#include <tuple>

#include "common/machinery/device_choice.hpp"
#include "common/machinery/guard.hpp"
#include "common/machinery/program_cache.hpp"
#include "common/machinery/reference.hpp"
#include "common/machinery/registry.hpp"
#include "common/machinery/report.hpp"
#include "common/machinery/settings.hpp"
#include "tests/image_encoders.hpp"
#include "tests/files.hpp"
#include "tests/support.hpp"
#include "tests/process.hpp"

using namespace conv;

namespace {

using Catch::Matchers::Matches;
using test::Outcome;

Outcome run(const std::string& program, std::vector<std::string> args) {
  return test::run_program(program, args);
}

std::vector<std::string> step_programs() {
  std::vector<std::string> names;
  for (auto& s : all_steps()) names.push_back(s->name());
  return names;
}

// One line on stderr naming `needle`, and the expected status.
void expect_error(const Outcome& r, int status, const std::string& needle) {
  INFO("stderr: " << r.err);
  CHECK(r.signal == 0);
  CHECK(r.status == status);
  CHECK(r.err_lines() == 1);
  CHECK_THAT(r.err, ContainsText(needle));
}

}  // namespace

TEST_CASE("a run is retried only when LeakSanitizer's own tracer crashed", "[cli]") {
  const std::string tracer = "Tracer caught signal 11: addr=0x200000af0 pc=0x7f sp=0x7f\n"
                             "==1==LeakSanitizer has encountered a fatal error.\n";
  Outcome r;
  r.err = "verify: OK\n" + tracer;
  CHECK(test::tracer_crash_only(r));  // abort_on_error: ended by a signal
  r.status = 1;
  CHECK(test::tracer_crash_only(r));
  r.status = 0;
  CHECK_FALSE(test::tracer_crash_only(r));
  r.status = -1;
  for (const char* finding : {"==1==ERROR: AddressSanitizer: heap-use-after-free", "==1==ERROR: LeakSanitizer: detected "
                              "memory leaks", "x.cpp:3:5: runtime error: signed integer overflow"}) {
    r.err = std::string(finding) + "\n" + tracer;
    CHECK_FALSE(test::tracer_crash_only(r));
  }
  r.err = "Tracer caught signal 11\n";  // the scan crashed, but LeakSanitizer did not say it gave up
  CHECK_FALSE(test::tracer_crash_only(r));
  // The tracer could not attach to a thread: no signal, the fatal error and
  // its hint about ptrace.
  const std::string attach = "==1==LeakSanitizer has encountered a fatal error.\n"
                             "==1==HINT: LeakSanitizer does not work under ptrace (strace, gdb, etc)\n";
  r.err = "verify: OK\n" + attach;
  CHECK(test::tracer_crash_only(r));
  r.err = "==1==ERROR: LeakSanitizer: detected memory leaks\n" + attach;
  CHECK_FALSE(test::tracer_crash_only(r));
  r.err = "==1==HINT: LeakSanitizer does not work under ptrace (strace, gdb, etc)\n";
  CHECK_FALSE(test::tracer_crash_only(r));
  // A --kernel run's child that gave up so: its parent quotes the last line.
  const std::string child = "step8-separable: the kernel in bad.cl ended the process: SIGABRT (abort: an "
                            "assertion failed, or the driver gave up); its last line on stderr: \"";
  r.status = 134;
  r.err = child + "==1==HINT: LeakSanitizer does not work under ptrace (strace, gdb, etc)\"\n";
  CHECK(test::tracer_crash_only(r));
  r.err = child + "SUMMARY: AddressSanitizer: 24 byte(s) leaked in 1 allocation(s).\"\n";
  CHECK_FALSE(test::tracer_crash_only(r));
  r.err = "step8-separable: the kernel in bad.cl ended the process: SIGSEGV (segmentation fault); its last "
          "line on stderr: \"==1==HINT: LeakSanitizer does not work under ptrace (strace, gdb, etc)\"\n";
  CHECK_FALSE(test::tracer_crash_only(r));
}

TEST_CASE("every executable answers --help with exit 0 and its real options", "[cli]") {
  auto programs = step_programs();
  programs.push_back("tour");
  for (const auto& p : programs) {
    INFO(p);
    const Outcome r = run(p, {"--help"});
    CHECK(r.status == 0);
    for (const char* opt : {"--image", "--filter", "--border", "--wg", "--reps", "--csv",
                            "--list-devices", "--platform", "--device", "--device-type"})
      CHECK_THAT(r.out, ContainsText(opt));
  }
  const Outcome step = run("step1-naive", {"--help"});
  for (const char* opt : {"--output", "--verify", "--kernel"}) CHECK_THAT(step.out, ContainsText(opt));
  // Every tunable step's --help names its tuning mode and that mode's
  // options, and --tune --help describes them.
  for (const char* tunable : {"step7-tuned", "step8-separable", "step10-fft-tiled"}) {
    INFO(tunable);
    const Outcome tuned = run(tunable, {"--help"});
    for (const char* opt : {"--tune", "--filters", "--budget", "--small", "--no-store"})
      CHECK_THAT(tuned.out, ContainsText(opt));
    const Outcome mode = run(tunable, {"--tune", "--help"});
    CHECK(mode.status == 0);
    for (const char* opt : {"--filters", "--filter-widths", "--budget", "--reps", "--small", "--no-store", "--output"})
      CHECK_THAT(mode.out, ContainsText(opt));
  }
}

TEST_CASE("list-devices lists at least one device", "[cli]") {
  const Outcome r = run("step1-naive", {"--list-devices"});
  CHECK(r.status == 0);
  CHECK_THAT(r.out, ContainsText("platform 0") && ContainsText("device 0"));
}

TEST_CASE("usage errors exit 2 with one line", "[cli][errors]") {
  for (const auto& p : step_programs()) {
    INFO(p);
    expect_error(run(p, {"--image", "synthetic:0x10"}), 2, "must be positive");
    expect_error(run(p, {"--image", "synthetic:-5x10"}), 2, "synthetic");
    expect_error(run(p, {"--wg", "0x8"}), 2, "--wg");
    expect_error(run(p, {"--wg", "-1x8"}), 2, "--wg");
    expect_error(run(p, {"--wg", "sixteen"}), 2, "--wg");
    expect_error(run(p, {"--reps", "0"}), 2, "reps");
    expect_error(run(p, {"--border", "mirror"}), 2, "--border");
    expect_error(run(p, {"--filter", "box:0"}), 2, "--filter");
    expect_error(run(p, {"--filter", "nonsense"}), 2, "unknown filter");
    expect_error(run(p, {"--output", "result.txt"}), 2, ".png or .pfm");
    expect_error(run(p, {"--no-such-option"}), 2, "no-such-option");
    expect_error(run(p, {"--device-type", "fpga"}), 2, "device-type");
  }
  expect_error(run("tour", {"--image", "synthetic:0x10"}), 2, "must be positive");
  // A tuning option without --tune: named as such.
  expect_error(run("step7-tuned", {"--budget", "5"}), 2, "--budget: an option of the tuning mode; add --tune");
  expect_error(run("step10-fft-tiled", {"--small"}), 2, "add --tune");
  expect_error(run("step1-naive", {"--image", ""}), 2, "--image: empty");
  expect_error(run("kernel-info", {"--step", "1", "--dir", ""}), 2, "--dir: empty");
}

TEST_CASE("kernel-info refuses a --dir it cannot write before any work", "[cli][errors]") {
  const Outcome r = run("kernel-info", {"--step", "1", "--dir", conv::test::scratch_dir() + "/no/such/dir"});
  INFO(r.err);
  CHECK(r.status == 1);
  CHECK(r.out.empty());  // nothing printed before the refusal
  CHECK(r.err_lines() == 1);
  CHECK_THAT(r.err, ContainsText("does not exist"));
}

TEST_CASE("sweep fails when every run was skipped, and writes no table", "[cli][errors]") {
  const std::string out = conv::test::scratch_dir() + "/none.csv";
  const Outcome r = run("sweep", {"--images", "64x48", "--steps", "1", "--wgs", "8192x8192", "--reps", "1",
                                  "--output", out});
  INFO(r.err);
  CHECK(r.status == 1);
  CHECK_THAT(r.err, ContainsText("skipped: ") && ContainsText("sweep: no run was timed: every one was skipped"));
  CHECK_FALSE(conv::test::file_exists(out));
  CHECK_FALSE(conv::test::file_exists(out + ".partial"));
}

TEST_CASE("output that cannot be written fails the run, and says so last", "[cli][errors]") {
  if (!test::file_exists("/dev/full")) {
    WARN("SKIPPED: no /dev/full here");
    return;
  }
  const std::vector<std::pair<std::string, std::vector<std::string>>> runs = {
      {"step1-naive", {"--image", "synthetic:8x8", "--reps", "1", "--csv"}},
      {"tour", {"--image", "synthetic:8x8", "--reps", "1", "--serial-reps", "1", "--csv"}},
      {"histogram", {"--image", "synthetic:8x8", "--reps", "1"}},
      {"kernel-info", {"--step", "1"}},
      {"sweep", {"--images", "16x16", "--steps", "1", "--filters", "box:3", "--reps", "1"}},
      {"step1-naive", {"--help"}}};
  for (const auto& [program, args] : runs) {
    INFO(program << " " << args.front());
    const Outcome r = test::run_program(program, args, {}, 120, "/dev/full");
    INFO("stderr: " << r.err);
    CHECK(r.status == 1);
    // The last line (the tour prints its progress above it), with the
    // reason where the failed write left it in errno.
    const auto from = r.err.rfind('\n', r.err.size() >= 2 ? r.err.size() - 2 : 0);
    CHECK_THAT(r.err.substr(from == std::string::npos ? 0 : from + 1),
               Matches(program + ": standard output: write failed(: No space left on device)?\n"));
  }
}

TEST_CASE("bad inputs exit 1 with one line naming the file", "[cli][errors]") {
  using conv::test::write_scratch;
  const std::string dir = conv::test::scratch_dir();
  std::vector<std::uint8_t> px(32 * 32, 77);
  auto png = conv::test::encode("png", 32, 32, 1, px);
  png.resize(png.size() / 2);
  const std::string truncated = write_scratch("truncated.png", png);
  const std::string corrupt = write_scratch("corrupt.png", std::string("\x89PNG\r\n\x1a\n garbage garbage"));
  const std::string empty = write_scratch("empty.bmp", std::string());
  const std::string bad_filter = write_scratch("bad-filter.txt", "1 2 3\n4 five 6\n7 8 9\n");
  const std::string nan_filter = write_scratch("nan-filter.txt", "1 2 3 nan");
  const std::string bad_kernel = write_scratch("bad.cl", "__kernel void convolve() { this_is_not_c; }\n");

  for (const auto& p : step_programs()) {
    INFO(p);
    expect_error(run(p, {"--image", dir + "/missing.png"}), 1, "missing.png");
    expect_error(run(p, {"--image", truncated}), 1, "truncated.png");
    expect_error(run(p, {"--image", corrupt}), 1, "corrupt.png");
    expect_error(run(p, {"--image", empty}), 1, "empty.bmp");
    expect_error(run(p, {"--image", dir}), 1, "directory");
    expect_error(run(p, {"--filter", "file:" + bad_filter}), 1, "line 2");
    expect_error(run(p, {"--filter", "file:" + nan_filter}), 1, "nan-filter.txt");
    expect_error(run(p, {"--filter", "file:" + dir + "/none.txt"}), 1, "none.txt");
    expect_error(run(p, {"--kernel", dir + "/none.cl"}), 1, "none.cl");
    expect_error(run(p, {"--image", "synthetic:8x8", "--wg", "4096x4096"}), 1, "limit");
    expect_error(run(p, {"--image", "synthetic:8x8", "--platform", "99"}), 1, "out of range");
    expect_error(run(p, {"--image", "synthetic:8x8", "--device", "99"}), 1, "out of range");
    expect_error(run(p, {"--image", "synthetic:8x8", "--output", dir + "/no/such/dir/out.png"}), 1,
                 "does not exist");

    // A kernel that does not compile: the build log reaches the user.
    const Outcome r = run(p, {"--image", "synthetic:8x8", "--kernel", bad_kernel});
    INFO(r.err);
    CHECK(r.signal == 0);
    CHECK(r.status == 1);
    CHECK_THAT(r.err, ContainsText("bad.cl") && ContainsText("build log") && ContainsText("this_is_not_c"));
  }
}

TEST_CASE("step output as PFM matches the serial result for a file image and filter", "[cli]") {
  using conv::test::write_scratch;
  std::mt19937 rng(12345);
  const int w = 37, h = 23;
  std::vector<std::uint8_t> px(w * h);
  for (auto& v : px) v = static_cast<std::uint8_t>(rng() % 256);
  const std::string image = write_scratch("in.pgm", conv::test::encode("pgm", w, h, 1, px));
  const std::string filter = write_scratch("f.txt", "# 4x4, even\n1 -2 3 0.5\n0 0 1 1\n-1 2 2 2\n0.25 0 0 -3\n");
  for (const auto& p : step_programs())
    for (const char* border : {"zero", "clamp"}) {
      INFO(p << ", border " << border);
      const std::string out = conv::test::scratch_dir() + "/" + p + "-" + border + ".pfm";
      const Outcome r = run(p, {"--image", image, "--filter", "file:" + filter, "--border", border,
                                "--output", out, "--reps", "1", "--verify"});
      INFO(r.err);
      REQUIRE(r.status == 0);
      const Image result = load_image(out);
      const Filter f = parse_filter_spec("file:" + filter);
      const Reference ref = reference_correlate(pad_image(load_image(image), 4, parse_border(border)), f);
      CHECK(compare_with_reference(result, ref, f.width).passed());
    }
}

TEST_CASE("verify fails (exit 1) for a wrong kernel, and no temporary files stay", "[cli]") {
  // A kernel that computes the wrong thing: every output 0.
  const std::string wrong = conv::test::write_scratch(
      "wrong.cl",
      "__kernel void convolve(__global const float* in, __global const float* f, __global float* out,\n"
      "                       int pitch, int w, int h, int fw) {\n"
      "  int x = get_global_id(0), y = get_global_id(1);\n"
      "  if (x < w && y < h) out[y * w + x] = 0.0f;\n"
      "}\n");
  const std::string out = conv::test::scratch_dir() + "/wrong.png";
  const Outcome r = run("step1-naive", {"--image", "synthetic:20x20", "--kernel", wrong, "--verify",
                                        "--reps", "1", "--output", out});
  CHECK(r.status == 1);
  CHECK_THAT(r.err, ContainsText("FAILED"));
  for (const auto& entry : std::filesystem::directory_iterator(conv::test::scratch_dir()))
    CHECK_THAT(entry.path().filename().string(), !ContainsText(".tmp.") && !Catch::Matchers::StartsWith(".clconv-"));
}

TEST_CASE("step 9's experiment settings change the plan, keep the result, refuse nonsense",
          "[cli][step9]") {
  // bench/experiments.sh fft-tuning and fft-strips (docs/step9-fft.md):
  // CLCONV_FFT_SIZE=PxQ picks the transform, CLCONV_VKFFT VkFFT's knobs.
  const std::vector<std::string> args = {"--image", "synthetic:37x23", "--filter", "random:5",
                                         "--reps", "1", "--verify"};
  SECTION("a larger transform still verifies, and the note names it") {
    const Outcome r = test::run_program("step9-fft", args, {{"CLCONV_FFT_SIZE", "64x48"}});
    INFO(r.err);
    CHECK(r.status == 0);
    CHECK_THAT(r.err + r.out, ContainsText("transform 64x48") && ContainsText("VkFFT kernels per axis 1+1"));
  }
  SECTION("VkFFT's knobs still verify") {
    const Outcome r = test::run_program("step9-fft", args,
                                        {{"CLCONV_VKFFT", "registerBoost=2,registerBoostNonPow2=1,aimThreads=64"}});
    INFO(r.err);
    CHECK(r.status == 0);
  }
  SECTION("a plan that fails its self-check gives way to a larger transform") {
    // On PoCL 3.1 and 5.0, VkFFT 1.2.26's 3528x3528 plan turns an image into
    // infinities (docs/step9-fft.md); where it works, this is a plain run.
    const Outcome r = test::run_program(
        "step9-fft", {"--image", "synthetic:3526x3526", "--filter", "random:3", "--reps", "1", "--verify"}, {},
        300);
    INFO(r.err);
    CHECK(r.status == 0);
    CHECK_THAT(r.err, ContainsText("- OK"));
  }
  SECTION("nonsense is one line and exit 1") {
    for (const auto& [name, value, needle] :
         std::vector<std::tuple<std::string, std::string, std::string>>{
             {"CLCONV_FFT_SIZE", "40x40", "at least the padded image"},  // padded: 41x27
             {"CLCONV_FFT_SIZE", "65x48", "P even"},
             {"CLCONV_FFT_SIZE", "64x48x2", "is not PxQ"},
             {"CLCONV_VKFFT", "nope=1", "unknown key 'nope'"},
             {"CLCONV_VKFFT", "useLUT", "is not key=value"},
             {"CLCONV_VKFFT", "useLUT=yes", "needs a whole number"}}) {
      INFO(name << "=" << value);
      expect_error(test::run_program("step9-fft", args, {{name, value}}), 1, needle);
    }
  }
}

TEST_CASE("the tour runs every step and prints one CSV header", "[cli][tour]") {
  const Outcome r = run("tour", {"--image", "synthetic:67x45", "--filter", "gaussian:5", "--reps", "2", "--csv"});
  INFO(r.err);
  REQUIRE(r.status == 0);
  std::istringstream lines(r.out);
  std::string line;
  std::getline(lines, line);
  CHECK_THAT(line, Catch::Matchers::StartsWith("device,driver,"));
  const auto fields_of = conv::test::csv_fields;
  const auto header = fields_of(line);
  auto column = [&](const std::string& name) {
    return static_cast<std::size_t>(std::find(header.begin(), header.end(), name) - header.begin());
  };
  int rows = 0;
  bool seen_serial = false;
  std::map<std::string, std::vector<std::string>> by_step;  // "step variant" -> fields
  while (std::getline(lines, line)) {
    CHECK_THAT(line, !ContainsText("device,driver,"));
    seen_serial |= line.find(",serial,") != std::string::npos;
    const auto fields = fields_of(line);
    by_step[fields.at(column("step")) + " " + fields.at(column("variant"))] = fields;
    ++rows;
  }
  CHECK(seen_serial);
  CHECK_THAT(r.out, !ContainsText("% limit:"));  // the legend is the table's, never the CSV's
  // Each step's default, and step 4's "fixed", which step 5 builds on.
  CHECK(rows == 2 + static_cast<int>(step_programs().size()));
  for (const auto& p : step_programs()) CHECK_THAT(r.out, ContainsText("," + p + ","));
  // x prev credits one idea: step 5 over step 4's fixed, fixed over loop4.
  auto ms = [&](const std::string& key) { return std::stod(by_step.at(key).at(column("median_ms"))); };
  auto prev = [&](const std::string& key) { return std::stod(by_step.at(key).at(column("speedup_prev"))); };
  CHECK(prev("step5-vector float4") == Approx(ms("step4-unroll fixed") / ms("step5-vector float4")).epsilon(0.01));
  CHECK(prev("step4-unroll fixed") == Approx(ms("step4-unroll loop4") / ms("step4-unroll fixed")).epsilon(0.01));
  CHECK(prev("step4-unroll loop4") == Approx(ms("step3-local default") / ms("step4-unroll loop4")).epsilon(0.01));
  // Without --wg each step runs the work-group its own executable picks.
  for (const char* step : {"step7-tuned", "step8-separable", "step10-fft-tiled"}) {
    const Outcome own = run(step, {"--image", "synthetic:67x45", "--filter", "gaussian:5", "--reps", "1", "--csv"});
    REQUIRE(own.status == 0);
    std::istringstream own_lines(own.out);
    std::string own_line;
    std::getline(own_lines, own_line);
    std::getline(own_lines, own_line);
    const auto fields = fields_of(own_line);
    INFO(step << ": " << own_line);
    const std::string key = std::string(step) + " " + fields.at(column("variant"));
    REQUIRE(by_step.count(key));
    CHECK(by_step.at(key).at(column("wg")) == fields.at(column("wg")));
  }
}

TEST_CASE("the tour's table comes with a legend of its columns", "[cli][tour]") {
  const Outcome r = run("tour", {"--image", "synthetic:67x45", "--filter", "box:3", "--reps", "2"});
  INFO(r.err);
  REQUIRE(r.status == 0);
  // Every column the table prints is explained under it.
  for (const char* entry : {"median ms, min ms:", "GFLOP/s, GB/s:", "x serial:", "x prev:", "% limit:",
                            "max abs err:"})
    CHECK_THAT(r.out, ContainsText(entry));
  const auto table = r.out.find("% limit");
  const auto legend = r.out.find("% limit:");
  REQUIRE(table != std::string::npos);
  CHECK(table < legend);  // the column first, then its legend
}
