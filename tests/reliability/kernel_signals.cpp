// A --kernel run whose kernel ends the process by a signal ends with one
// line naming what happened (common/machinery/supervisor.hpp), and what can be known
// before the launch is refused before it (docs/reliability.md, "What is
// refused, and why").
#include "tests/catch.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <csignal>
#include <random>
#include <string>
#include <vector>

#include "common/machinery/sanitizer.hpp"
#include "tests/files.hpp"
#include "tests/reliability/refusal_checks.hpp"
#include "tests/support.hpp"

using namespace conv::test;

namespace {

// Under AddressSanitizer a fault in a kernel is caught by ASan's own handler,
// which reports it and aborts (abort_on_error=1): SIGABRT, not SIGSEGV.
constexpr bool kSanitized = conv::kAddressSanitizer;

// A step 1 kernel (step1-naive's arguments) with `body`.
std::string step1_kernel(const std::string& name, const std::string& body) {
  return write_scratch(name,
                       "__kernel void convolve(__global const float* input, __global const float* filter,\n"
                       "  __global float* output, const int in_pitch, const int out_width,\n"
                       "  const int out_height, const int filter_width) {\n" +
                           body + "\n}\n");
}

// A random small image, so that no one size is all that is ever tried.
std::string random_image_spec() {
  std::mt19937 rng(run_seed());
  std::uniform_int_distribution<int> side(8, 40);
  return "synthetic:" + std::to_string(side(rng)) + "x" + std::to_string(side(rng));
}

// The run ended by itself (no signal reached the caller), non-zero, with
// exactly one line on stderr: "step1-naive: the kernel in FILE ended the
// process: SIG..." naming one of `signals` and `phase`.
void expect_signal_line(const Outcome& r, const std::string& program, const std::string& file,
                        const std::vector<std::string>& signals, const std::string& phase) {
  INFO("status " << r.status << ", signal " << r.signal << ", stderr:\n" << r.err << "\n" << seed_note());
  CHECK_FALSE(r.timed_out);
  CHECK(r.signal == 0);
  CHECK(r.status > 128);
  CHECK(r.err_lines() == 1);
  CHECK(r.err.rfind(program + ": the kernel in " + file + " ended the process: SIG", 0) == 0);
  bool named = false;
  for (const auto& s : signals) named = named || r.err.find(": " + s + " (") != std::string::npos;
  CHECK(named);
  CHECK(r.err.find(phase) != std::string::npos);
}

}  // namespace

TEST_CASE("a kernel that ends the process by a signal is reported in one line", "[kept][signals]") {
  const std::string image = random_image_spec();
  // SIGSEGV, or SIGABRT where ASan catches the fault first.
  const std::vector<std::string> segv =
      kSanitized ? std::vector<std::string>{"SIGSEGV", "SIGABRT"} : std::vector<std::string>{"SIGSEGV"};
  SECTION("a write gigabytes past the output") {
    const std::string far = step1_kernel("far-write.cl", "output[get_global_id(0) + ((size_t)1 << 36)] = 1.0f;");
    const Outcome r = run_program("step1-naive", {"--image", image, "--reps", "1", "--kernel", far});
    expect_signal_line(r, "step1-naive", far, segv, "while running on the device");
    if (!kSanitized) CHECK(r.status == 128 + SIGSEGV);
  }
  SECTION("__builtin_trap()") {
    const std::string trap = step1_kernel("trap.cl", "__builtin_trap();");
    const Outcome r = run_program("step1-naive", {"--image", image, "--reps", "1", "--kernel", trap});
    expect_signal_line(r, "step1-naive", trap, {"SIGILL", "SIGTRAP"}, "while running on the device");
  }
  SECTION("a private array larger than a worker thread's stack") {
    // 64 MiB of private memory: PoCL reports 1,024 bytes for it, so no
    // check before the launch can see it; the stack overflows.
    const std::string big = step1_kernel(
        "private-64mib.cl",
        "float p[1u << 24];\n"
        "for (int i = 0; i < in_pitch * 4096; ++i) p[((uint)i * 7919u) & ((1u << 24) - 1u)] = (float)i;\n"
        "output[get_global_id(0) % 4] = p[in_pitch];");
    const Outcome r = run_program("step1-naive", {"--image", image, "--reps", "1", "--kernel", big});
    expect_signal_line(r, "step1-naive", big, segv, "while running on the device");
  }
  SECTION("the histogram's --kernel too") {
    const std::string trap = write_scratch(
        "count-trap.cl",
        "__kernel void count(__global const uchar* rgb, const uint pixels, const uint chunk,\n"
        "                    const uint items, __global uint* partials) {\n"
        "  __builtin_trap();\n"
        "}\n");
    const Outcome r = run_program("histogram", {"--image", image, "--variant", "global-partials", "--reps", "1",
                                                "--kernel", trap});
    expect_signal_line(r, "histogram", trap, {"SIGILL", "SIGTRAP"}, "while running on the device");
  }
}

TEST_CASE("a kernel's own __local arrays over the device's limit are refused before the launch",
          "[kept][signals][limits]") {
  // 16 MiB of __local floats: on PoCL the launch ended in an assertion
  // inside the driver (SIGABRT); CL_KERNEL_LOCAL_MEM_SIZE counts them.
  const std::string local = step1_kernel(
      "local-16mib.cl",
      "__local float big[4u << 20];\n"
      "big[get_local_id(0)] = 1.0f;\n"
      "barrier(CLK_LOCAL_MEM_FENCE);\n"
      "output[0] = big[(get_local_id(0) + 1) % 16];");
  const Outcome r = expect_refusal("step1-naive", {"--image", random_image_spec(), "--kernel", local}, 1,
                                   "the kernel's __local arrays need 16777216 bytes of local memory");
  CHECK(r.err.find("CL_DEVICE_LOCAL_MEM_SIZE") != std::string::npos);
}

TEST_CASE("the watchdog says whether it stopped a build or a kernel", "[kept][hang]") {
  // An #include of a FIFO nobody writes: the OpenCL compiler waits forever.
  const std::string pipe = scratch_dir() + "/include-fifo";
  ::unlink(pipe.c_str());
  REQUIRE(::mkfifo(pipe.c_str(), 0600) == 0);
  const std::string stuck = write_scratch(
      "includes-a-fifo.cl",
      "#include \"" + pipe + "\"\n"
      "__kernel void convolve(__global const float* input, __global const float* filter,\n"
      "  __global float* output, const int in_pitch, const int out_width,\n"
      "  const int out_height, const int filter_width) {}\n");
  const Outcome b = run_program("step1-naive", {"--image", "synthetic:8x8", "--kernel", stuck, "--timeout", "2"},
                                {{"POCL_KERNEL_CACHE", "0"}}, 60);
  INFO(b.err);
  CHECK_FALSE(b.timed_out);
  CHECK(b.status == 1);
  CHECK(b.err_lines() == 1);
  CHECK(b.err.find("step1-naive: stopped after --timeout 2 s while the kernel was being built") == 0);
  const std::string forever = step1_kernel("loops.cl", "int i = 0;\nwhile (in_pitch > 0) output[get_global_id(0) % 4] = (float)(i++);");
  const Outcome k = run_program("step1-naive", {"--image", "synthetic:8x8", "--kernel", forever, "--timeout", "2"}, {}, 60);
  INFO(k.err);
  CHECK(k.status == 1);
  CHECK(k.err_lines() == 1);
  CHECK(k.err.find("the kernel did not finish") != std::string::npos);
}
