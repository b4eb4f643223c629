// Hostile sizes given to the step executables: work-groups the device
// refuses, huge filters, absurd synthetic images, and a buffer over the
// device's allocation limit. Each is refused in one line naming the limit, or
// runs correctly; never a crash, never a partial output file.
#include "tests/catch.hpp"

#include <cmath>
#include <string>

#include "common/machinery/device_choice.hpp"
#include "common/machinery/guard.hpp"
#include "common/machinery/program_cache.hpp"
#include "common/machinery/reference.hpp"
#include "common/machinery/report.hpp"
#include "common/machinery/settings.hpp"
#include "tests/files.hpp"
#include "tests/reliability/refusal_checks.hpp"
#include "tests/support.hpp"

using namespace conv::test;

namespace {

// Either a correct result (exit 0, verified) or one line naming a limit.
void expect_result_or_limit(const std::string& program, const std::vector<std::string>& args) {
  const Outcome r = run_program(program, args);
  std::string command = program;
  for (const auto& a : args) command += " " + a;
  INFO(command << "\nstatus " << r.status << ", stderr:\n" << r.err);
  CHECK_FALSE(r.timed_out);
  CHECK(r.signal == 0);
  if (r.status == 0) {
    CHECK(r.err.find("- OK") != std::string::npos);
  } else {
    CHECK(r.status == 1);
    CHECK(r.err_lines() == 1);
    CHECK(r.err.find("limit") != std::string::npos);
  }
}

}  // namespace

TEST_CASE("work-groups the device refuses are refused in one line naming the limit",
          "[hostile][limits]") {
  const auto& facts = device().facts();
  // Wider than 4 (step 5 wants multiples of 4), and over the device's total.
  const std::string over = std::to_string(facts.max_work_group) + "x2";
  for (const auto& program : step_programs()) {
    INFO(program);
    expect_refusal(program, {"--image", "synthetic:8x8", "--wg", over}, 1,
                   "CL_DEVICE_MAX_WORK_GROUP_SIZE");
    expect_refusal(program, {"--image", "synthetic:8x8", "--wg", "16384x16384"}, 1,
                   "CL_DEVICE_MAX_WORK_GROUP_SIZE");
    expect_refusal(program, {"--image", "synthetic:8x8", "--wg", "16385x1"}, 2, "--wg");
    // A long thin group and the widest filter: the tile's local memory or the
    // kernel's own work-group limit may refuse it; a step without a tile runs.
    expect_result_or_limit(program, {"--image", "synthetic:8x8", "--filter", "random:127",
                                     "--wg", std::to_string(facts.max_work_group) + "x1",
                                     "--reps", "1", "--verify"});
  }
}

TEST_CASE("filters over the width limit are refused, and the widest allowed one works",
          "[hostile][limits]") {
  std::string values;
  for (int i = 0; i < 128 * 128; ++i) values += "0.5 ";
  const std::string wide = write_scratch("wide-filter.txt", values);
  for (const auto& program : step_programs()) {
    INFO(program);
    expect_refusal(program, {"--filter", "box:128"}, 2, "127");
    expect_refusal(program, {"--filter", "random:99999999999999:1"}, 2, "--filter");
    expect_refusal(program, {"--filter", "file:" + wide}, 1, "more than 127x127");
    expect_result_or_limit(program, {"--image", "synthetic:20x9", "--filter", "random:127",
                                     "--reps", "1", "--verify"});
  }
}

TEST_CASE("synthetic images over the size limit are usage errors", "[hostile][limits]") {
  for (const auto& program : step_programs()) {
    INFO(program);
    expect_refusal(program, {"--image", "synthetic:65536x65536"}, 2, "over the limit");
    expect_refusal(program, {"--image", "synthetic:99999999999x1"}, 2, "synthetic");
    expect_refusal(program, {"--image", "synthetic:16x16:0"}, 2, "seed");
  }
}

// No accepted image reaches PoCL's usual CL_DEVICE_MAX_MEM_ALLOC_SIZE (2 GiB
// on a 24 GiB machine, while the largest padded input, 65662 x 4222 floats,
// is 1.03 GiB). POCL_MEMORY_LIMIT=1 shrinks the device to 1 GiB and the limit
// to 256 MiB, which the buffers of an 8192 x 8192 image pass.
TEST_CASE("a buffer over the device's allocation limit is refused naming the limit",
          "[hostile][limits]") {
  if (device().facts().platform.find("Portable Computing Language") == std::string::npos) {
    WARN("SKIPPED: not PoCL: POCL_MEMORY_LIMIT cannot shrink " << device().facts().name);
    return;
  }
  const Env small_device = {{"POCL_MEMORY_LIMIT", "1"}};
  for (const auto& program : step_programs()) {
    INFO(program);
    const Outcome r = expect_refusal(program, {"--image", "synthetic:8192x8192", "--filter",
                                               "box:3"}, 1, "CL_DEVICE_MAX_MEM_ALLOC_SIZE",
                                     small_device);
    CHECK(r.err.find(std::to_string(256u << 20)) != std::string::npos);
  }
}
