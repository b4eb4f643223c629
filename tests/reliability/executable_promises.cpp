// What the executables promise about results and outputs: a result that is
// wrong, not finite or not written is an error; a failed run writes nothing
// and keeps the old file; every check of the command line, the output path
// and the device's limits comes before any work; nothing waits forever (a
// kernel that never returns, a FIFO); the limits cache is not trusted
// blindly. docs/reliability.md lists each case.
#include "tests/catch.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <random>
#include <filesystem>
#include <fstream>
#include <cstdlib>
#include <string>
#include <tuple>
#include <vector>

#include "common/machinery/device_choice.hpp"
#include "common/machinery/guard.hpp"
#include "common/machinery/program_cache.hpp"
#include "common/machinery/reference.hpp"
#include "common/machinery/registry.hpp"
#include "common/machinery/report.hpp"
#include "common/machinery/settings.hpp"
#include "tests/files.hpp"
#include "tests/reliability/refusal_checks.hpp"
#include "tests/support.hpp"

using namespace conv;
using namespace conv::test;
namespace fs = std::filesystem;

namespace {

const std::string kBroken = CLCONV_SOURCE_DIR "/tests/reliability/broken/";

// A step 1 kernel with `body` in place of its sum.
std::string kernel_file(const std::string& name, const std::string& body) {
  return write_scratch(name,
                       "__kernel void convolve(__global const float* input, __global const float* filter,\n"
                       "  __global float* output, const int in_pitch, const int out_width,\n"
                       "  const int out_height, const int filter_width) {\n" +
                           body + "\n}\n");
}

std::string fifo(const std::string& name) {
  const std::string path = scratch_dir() + "/" + name;
  ::unlink(path.c_str());
  REQUIRE(::mkfifo(path.c_str(), 0600) == 0);
  return path;
}

}  // namespace

TEST_CASE("results that are not finite or never written are errors, and nothing is written",
          "[kept][results]") {
  const std::string nothing = kernel_file("writes-nothing.cl", "");
  const std::string nan = kernel_file("writes-nan.cl",
                                      "const int x = get_global_id(0), y = get_global_id(1);\n"
                                      "if (x < out_width && y < out_height) output[y * out_width + x] = NAN;");
  const std::string partial = kernel_file("writes-half.cl",
                                          "const int x = get_global_id(0), y = get_global_id(1);\n"
                                          "if (x < out_width / 2 && y < out_height) output[y * out_width + x] = 0.0f;");
  expect_refusal("step1-naive", {"--image", "synthetic:20x10", "--kernel", nothing}, 1,
                 "200 of 200 pixels were never written");
  expect_refusal("step1-naive", {"--image", "synthetic:20x10", "--kernel", partial}, 1,
                 "100 of 200 pixels were never written by the kernel, the first at (10, 0)");
  expect_refusal("step1-naive", {"--image", "synthetic:20x10", "--kernel", nan}, 1, "NaN or infinite");
  // Huge but finite inputs whose sums overflow float.
  std::string values;
  for (int i = 0; i < 9; ++i) values += "3e38 ";
  const std::string huge = write_scratch("huge-filter.txt", values);
  for (const auto& program : step_programs())
    expect_refusal(program, {"--image", "synthetic:9x9", "--filter", "file:" + huge}, 1, "NaN or infinite");
}

TEST_CASE("a kernel writing past its output is a failure naming the element", "[kept][guards]") {
  const Outcome r = run_program("step1-naive", {"--image", "synthetic:17x33", "--wg", "8x32", "--reps", "1",
                                                "--kernel", kBroken + "step1-no-range-guard.cl"});
  INFO(r.err);
  CHECK(r.status == 1);
  CHECK(r.signal == 0);
  CHECK(r.err_lines() == 1);
  CHECK(r.err.find("wrote past the end of the output: element ") != std::string::npos);
}

TEST_CASE("one missing tap fails --verify at every filter width", "[kept][verify]") {
  const auto step_owner = find_step("step1-naive");
  Step& step = *step_owner;
  RunOptions dropped;
  dropped.kernel_source = read_text(kBroken + "step1-drops-last-tap.cl");
  dropped.kernel_label = "step1-drops-last-tap.cl";
  // Wider and taller than the widest filter's reach, so that the last tap of
  // many windows falls on the image (with a zero border, not on padding).
  std::mt19937 rng(run_seed());
  const Image image = random_image(72, 70, rng);
  INFO(seed_note());
  std::vector<int> widths = {31, 32, 50, 63, 64, 65, 100, 126, kMaxFilterWidth};
  for (int w = 1; w <= 20; ++w) widths.push_back(w);
  for (int width : widths) {
    for (const std::string& spec : {"random:" + std::to_string(width) + ":" + std::to_string(width),
                                    "box:" + std::to_string(width)}) {
      const Filter filter = parse_filter_spec(spec);
      INFO("filter " << filter.name);
      const Problem problem = make_problem(image, filter, Border::zero);
      const Reference ref = reference_correlate(problem.padded, filter);
      const RunResult right = run_step(step, device(), problem, RunOptions{}, 0);
      CHECK(compare_with_reference(right.output, ref, width).passed());
      const RunResult wrong = run_step(step, device(), problem, dropped, 0);
      CHECK_FALSE(compare_with_reference(wrong.output, ref, width).passed());
    }
  }
}

TEST_CASE("a run that fails --verify keeps the old output file", "[kept][outputs]") {
  const std::string dir = fresh_dir("keep");
  for (const std::string name : {"keep.png", "keep.pfm"}) {
    const std::string out = dir + "/" + name;
    { std::ofstream(out, std::ios::binary) << "precious"; }
    const Outcome r = run_program("step1-naive", {"--image", "synthetic:20x10", "--reps", "1", "--verify",
                                                  "--output", out, "--kernel", kBroken + "step1-drops-last-tap.cl",
                                                  "--filter", "random:5"});
    INFO(r.err);
    CHECK(r.status == 1);
    CHECK(r.err.find("FAILED (" + out + " not written)") != std::string::npos);
    CHECK(read_text(out) == "precious");
  }
  // The histogram's counts too: a kernel that counts nothing fails --verify.
  const std::string counts = dir + "/h.csv";
  { std::ofstream(counts) << "precious"; }
  const std::string zero = write_scratch(
      "count-nothing.cl",
      "__kernel void count(__global const uchar* rgb, const uint pixels, const uint chunk,\n"
      "                    const uint items, __global uint* partials) {\n"
      "  if (get_global_id(0) < items)\n"
      "    for (uint b = 0; b < 768; ++b) partials[(size_t)get_global_id(0) * 768 + b] = 0;\n"
      "}\n");
  const Outcome h = run_program("histogram", {"--image", "synthetic:32x16", "--variant", "global-partials",
                                              "--kernel", zero, "--verify", "--reps", "1", "--output", counts});
  INFO(h.err);
  CHECK(h.status != 0);
  CHECK(read_text(counts) == "precious");
}

TEST_CASE("an output that cannot be written is refused before any work", "[kept][outputs]") {
  // The device is never asked for: a CPU-only platform filter that matches nothing would fail later.
  for (const auto& program : step_programs()) {
    const Outcome r = run_program(program, {"--image", "synthetic:8x8", "--output", "/proc/x/out.png",
                                            "--platform", "no-such-platform"});
    INFO(program << ": " << r.err);
    CHECK(r.status == 1);
    CHECK(r.err.find("/proc/x/out.png") != std::string::npos);
  }
  const Outcome s = run_program("sweep", {"--steps", "1", "--images", "8x8", "--output", "/proc/sweep.csv",
                                          "--platform", "no-such-platform"});
  INFO(s.err);
  CHECK(s.status == 1);
  CHECK(s.err.find("/proc/sweep.csv: cannot write") != std::string::npos);
}

TEST_CASE("sweep checks every image before the first job and streams its rows", "[kept][sweep]") {
  const Outcome bad = run_program("sweep", {"--steps", "1", "--images", "8x8,no-such.png",
                                            "--platform", "no-such-platform"});
  INFO(bad.err);
  CHECK(bad.status == 1);
  CHECK(bad.err.find("no-such.png") != std::string::npos);
  CHECK(bad.err.find("sweep: [") == std::string::npos);  // no job ran
  const std::string out = fresh_dir("sweep") + "/rows.csv";
  const Outcome ok = run_program("sweep", {"--steps", "1,2", "--images", "8x8,9x7", "--reps", "1", "--output", out});
  INFO(ok.err);
  CHECK(ok.status == 0);
  CHECK(std::count(std::istreambuf_iterator<char>(*std::make_unique<std::ifstream>(out)), {}, '\n') == 5);
  CHECK_FALSE(fs::exists(out + ".partial"));
}

TEST_CASE("command-line mistakes exit 2 before any work", "[kept][cli]") {
  for (const auto& [args, needle] : std::vector<std::pair<std::vector<std::string>, std::string>>{
           {{"--seed", "1073741824", "--bank", "1,2"}, "--seed"}, {{"--block", "6x2"}, "--block"}}) {
    const Outcome r = run_program("step6-bank", args);
    INFO(r.err);
    CHECK(r.status == 2);
    CHECK(r.err_lines() == 1);
    CHECK(r.err.find("step6-bank: " + needle) == 0);  // before "bank of 1...": no work done
  }
  expect_refusal("step5-vector", {"--wg", "3x5"}, 2, "--wg");
  expect_refusal("step1-naive", {"--timeout", "-1"}, 2, "--timeout");
}

TEST_CASE("limits are checked before work: step6-volume, step6-bank's private sums", "[kept][limits]") {
  const auto start = std::chrono::steady_clock::now();
  const Outcome v = run_program("step6-volume", {"--size", "2048", "--no-limits"}, {}, 60);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  INFO(v.err);
  CHECK(v.status == 1);
  CHECK(v.err.find("CL_DEVICE_MAX_MEM_ALLOC_SIZE") != std::string::npos);
  CHECK(seconds < 20);  // generating the volume first took minutes
  if (!device().facts().is_gpu) {
    const Outcome b = run_program("step6-bank", {"--bank", "16", "--block", "16x16", "--image", "synthetic:64x64",
                                                 "--reps", "1", "--no-limits"});
    INFO(b.err);
    CHECK(b.signal == 0);
    CHECK(b.status == 1);
    CHECK(b.err.find("private memory") != std::string::npos);
  }
}

TEST_CASE("nothing waits forever: a kernel that never returns, FIFOs", "[kept][hang]") {
  const std::string forever = kernel_file("forever.cl",
                                          "int i = 0;\nwhile (in_pitch > 0) output[get_global_id(0) % 4] = (float)(i++);");
  const Outcome r = run_program("step1-naive", {"--image", "synthetic:8x8", "--kernel", forever, "--timeout", "3"}, {}, 60);
  INFO(r.err);
  CHECK_FALSE(r.timed_out);
  CHECK(r.status == 1);
  CHECK(r.err_lines() == 1);
  CHECK(r.err.find("--timeout 3 s") != std::string::npos);
  const std::string pipe = fifo("a-fifo");
  for (const auto& args : std::vector<std::vector<std::string>>{
           {"--image", pipe}, {"--filter", "file:" + pipe}, {"--kernel", pipe}}) {
    const Outcome f = run_program("step1-naive", args, {}, 30);
    INFO(args[0] << ": " << f.err);
    CHECK_FALSE(f.timed_out);
    CHECK(f.status == 1);
    CHECK(f.err.find("is a FIFO") != std::string::npos);
  }
  // A FIFO as the limits cache is ignored, not read.
  const std::string cache = fresh_dir("cache");
  fs::create_directories(cache + "/clconv");
  REQUIRE(::mkfifo((cache + "/clconv/limits.tsv").c_str(), 0600) == 0);
  const Outcome t = run_program("tour", {"--image", "synthetic:16x16", "--reps", "1"}, {{"XDG_CACHE_HOME", cache}}, 120);
  INFO(t.err);
  CHECK_FALSE(t.timed_out);
  CHECK(t.status == 0);
}

TEST_CASE("the limits cache: implausible figures are measured again, concurrent probes lock",
          "[kept][limits]") {
  const std::string cache = fresh_dir("limits");
  const Env env = {{"XDG_CACHE_HOME", cache}};
  // Two tours started together on an empty cache write one line between them.
  const std::string tour = "XDG_CACHE_HOME='" + cache + "' '" CLCONV_BIN_DIR "/tour' --image synthetic:16x16 --reps 1 --csv >/dev/null 2>&1";
  CHECK(std::system(("(" + tour + ") & (" + tour + ") & wait").c_str()) == 0);
  const std::string file = cache + "/clconv/limits.tsv";
  std::string text = read_text(file);
  CHECK(std::count(text.begin(), text.end(), '\n') == 1);
  // A figure no device has is not believed.
  const auto tab = text.find('\t');
  REQUIRE(tab != std::string::npos);
  { std::ofstream(file) << text.substr(0, tab) << "\t1e-300\t1e-300\n"; }
  const Outcome again = run_program("tour", {"--image", "synthetic:16x16", "--reps", "1"}, env, 300);
  INFO(again.out);
  CHECK(again.status == 0);
  CHECK(again.out.find("e-300") == std::string::npos);
  CHECK(read_text(file).find("e-300") == std::string::npos);
}

TEST_CASE("an unwritable home does not hide the CPU device", "[kept][device]") {
  if (device().facts().platform.find("Portable Computing Language") == std::string::npos) {
    WARN("SKIPPED: not PoCL, whose cache folder this is about");
    return;
  }
  const Outcome r = run_program("step1-naive", {"--image", "synthetic:8x8", "--reps", "1"},
                                {{"HOME", "/proc/no-home"}, {"XDG_CACHE_HOME", ""}, {"POCL_CACHE_DIR", ""}});
  INFO(r.err);
  CHECK(r.status == 0);
}

TEST_CASE("the histogram scales every PGM/PPM maximum value to 8 bits", "[kept][inputs]") {
  // 16-bit mid-gray (32768 of 65535) is bin 128; maxval 1's white is bin 255.
  for (const auto& [name, bytes, bin] : std::vector<std::tuple<std::string, std::string, std::string>>{
           {"mid16.pgm", std::string("P5\n2 1\n65535\n\x80\x00\x80\x00", 17), "128,2,2,2"},
           {"white1.pgm", std::string("P5\n2 1\n1\n\x01\x01", 11), "255,2,2,2"},
           {"odd.ppm", std::string("P6\n1 1\n7\n\x07\x00\x03", 12), "255,1,0,0"}}) {
    const std::string out = fresh_dir("counts") + "/h.csv";
    const Outcome r = run_program("histogram", {"--image", write_scratch(name, bytes), "--variant", "serial",
                                                "--reps", "1", "--output", out});
    INFO(name << ": " << r.err);
    CHECK(r.status == 0);
    CHECK(read_text(out).find("\n" + bin + "\n") != std::string::npos);
  }
}
