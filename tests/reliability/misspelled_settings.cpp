// Every executable in build/bin refuses a misspelled or meaningless setting
// with exit 2 and one line, before any work: the device is never opened
// (each run names a platform that does not exist, which would be exit 1),
// the device limits are never measured, no output file is written. The
// executables are found by listing the folder, so a tool added later is
// run here too (at least with an option no tool has).
#include "tests/catch.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "common/machinery/device_choice.hpp"
#include "tests/files.hpp"
#include "common/machinery/guard.hpp"
#include "common/machinery/program_cache.hpp"
#include "common/machinery/reference.hpp"
#include "common/machinery/registry.hpp"
#include "common/machinery/report.hpp"
#include "common/machinery/settings.hpp"
#include "tests/process.hpp"
#include "tests/reliability/refusal_checks.hpp"

using namespace conv;
using namespace conv::test;
namespace fs = std::filesystem;

namespace {

using Args = std::vector<std::string>;

// The executables in build/bin, less the test suites (*_tests) and the
// fuzzers (fuzz_*), which are not tools.
std::vector<std::string> tools() {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(CLCONV_BIN_DIR)) {
    const std::string name = entry.path().filename().string();
    if (!entry.is_regular_file() || ::access(entry.path().c_str(), X_OK) != 0) continue;
    if (name.size() > 6 && name.compare(name.size() - 6, 6, "_tests") == 0) continue;
    if (name.rfind("fuzz_", 0) == 0) continue;
    names.push_back(name);
  }
  std::sort(names.begin(), names.end());
  return names;
}

// The tools that open an OpenCL device take --platform; a platform nobody
// has turns "the device was opened first" into exit 1.
bool opens_a_device(const std::string& program) { return program != "grade" && program != "opencv-filter2d"; }

// The mistakes each tool must refuse, beyond an option no tool has.
std::map<std::string, std::vector<Args>> mistakes() {
  std::map<std::string, std::vector<Args>> m;
  for (const auto& step : all_steps()) {
    auto& list = m[step->name()];
    for (const char* t : {"nan", "-nan", "inf", "-1", "1e-400", "1e7", "5s", ""}) list.push_back({"--timeout", t});
    list.push_back({"--variant", "bogus"});
    // Every option the step declares, with a value none takes: choices and
    // free text alike (a free-text option must declare its check).
    for (const auto& o : step->options()) list.push_back({"--" + o.name, "bogus"});
    list.push_back({"--output", ""});
  }
  // Options the chosen method does not use are still checked, and the
  // options step 8 had when it had variants (--variant, --fused-kernel,
  // --column-block: now --method and one --block) are refused as unknown.
  // (A value the method cannot run with is refused once the device is
  // open: "step 8 refuses a setting its method cannot run with", below.)
  m["step8-separable"].push_back({"--method", "fused", "--columns", "bogus"});
  m["step8-separable"].push_back({"--method", "box", "--block", "bogus"});
  m["step8-separable"].push_back({"--method", "passes", "--unroll", "auto,on"});
  m["step8-separable"].push_back({"--block", "5x4"});
  m["step8-separable"].push_back({"--variant", "fused"});
  m["step8-separable"].push_back({"--fused-kernel", "box"});
  m["step8-separable"].push_back({"--column-block", "4x8"});
  m["step6-multioutput"].push_back({"--block", "5x4"});
  m["kernel-info"] = {{"--variant", "bogus"}, {"--set", "bogus=1"}, {"--set", "=4"}, {"--set", "block"},
                      {"--set", "block="}, {"--step", "1", "--set", "bank=2"}, {"--set", "variant=rows"},
                      {"--set", "block=5x4"}, {"--step", "8", "--set", "method=fused", "--set", "columns=bogus"},
                      {"--step", "5", "--wg", "3x5"}, {"--step", "99"}, {"--step", "8", "--variant", "fused"},
                      {"--step", "8", "--set", "fused-kernel=direct"}, {"--step", "10", "--set", "layout=bogus"},
                      {"--set", "bank=2", "--set", "bank=4"}, {"--set", "block=4x1", "--set", "block=8x1"}};
  m["sweep"] = {{"--set", "blok=8x2"}, {"--set", "block=5x4"}, {"--set", "=4"}, {"--set", "block=,"},
                {"--set", "variant=rows"}, {"--variants", "bogus"}, {"--steps", "1", "--set", "bank=2"},
                {"--steps", "8", "--set", "columns=tile,bogus"}, {"--steps", "99"},
                {"--steps", "8", "--variants", "fused"}, {"--steps", "8", "--set", "fused-kernel=tile,direct"},
                {"--steps", "8", "--set", "method=passes,bogus"}, {"--steps", "10", "--set", "tile=64,48"},
                {"--set", "block=4x4,,8x8"}, {"--set", "block=4x4,"}, {"--set", "block=4x4", "--set", "block=8x8"},
                {"--steps", "1,,2"}, {"--images", "8x8,,16x16"}, {"--filters", "box:3,"}, {"--wgs", ",8x8"},
                {"--variants", "default,,all"}, {"--output", ""}};
  m["tour"] = {{"--set", "block=5x4"}, {"--set", "blok=1"}, {"--set", "=4"}, {"--set", "variant=rows"},
               {"--set", "columns=bogus"}, {"--wg", "3x5"}, {"--set", "bank=2", "--set", "bank=4"}};
  m["histogram"] = {{"--timeout", "nan"}, {"--timeout", "inf"}, {"--timeout", "-1"}, {"--variant", "bogus"},
                    {"--output", ""}};
  m["step6-bank"] = {{"--block", "6x2"}, {"--bank", "3"}, {"--wg", "0x4"}, {"--bank", "1,,2"}, {"--bank", "1,"}};
  m["step6-volume"] = {{"--variant", "bogus"}, {"--bank", "3"}, {"--size", "0"}, {"--bank", "1,,2"},
                       {"--variant", "naive,,blocked"}};
  m["kernel_check"] = {{"--step", "1", "--variant", "bogus"}, {"--step", "99"}};
  m["grade"] = {{"--jobs", "x"}};
  return m;
}

// Where the tool would write, so that the test can see nothing was.
Args output_args(const std::string& program, const std::string& dir) {
  if (program == "sweep" || program == "histogram") return {"--output", dir + "/out.csv"};
  if (program == "kernel-info") return {"--dir", dir};
  if (program == "grade") return {"--report", dir + "/report.csv"};
  if (program.rfind("step", 0) == 0 && program != "step6-bank" && program != "step6-volume")
    return {"--output", dir + "/out.pfm"};
  return {};
}

void expect_usage_error(const std::string& program, Args args) {
  const std::string dir = fresh_dir("misspelled-" + program);
  // (A mistake in --output itself is made with no other --output.)
  const Args out = std::count(args.begin(), args.end(), "--output") ? Args{} : output_args(program, dir);
  args.insert(args.end(), out.begin(), out.end());
  if (opens_a_device(program)) args.insert(args.end(), {"--platform", "no-such-platform"});
  std::string command = program;
  for (const auto& a : args) command += " '" + a + "'";
  const Outcome r = run_program(program, args, {}, 60);
  INFO(command << "\nstatus " << r.status << ", signal " << r.signal << ", stderr:\n" << r.err);
  CHECK_FALSE(r.timed_out);
  CHECK(r.signal == 0);
  CHECK(r.status == 2);
  CHECK(r.err_lines() == 1);
  CHECK(r.err.rfind(program + ": ", 0) == 0);
  CHECK(r.err.find("measuring") == std::string::npos);
  CHECK(r.out.empty());
  CHECK(fs::is_empty(dir));  // no output, no temporary file
}

}  // namespace

TEST_CASE("every executable refuses a misspelled or meaningless setting before any work",
          "[kept][cli][settings]") {
  const auto all = tools();
  const auto table = mistakes();
  // The table names only tools that exist, and the tools the project
  // always builds are all here.
  for (const auto& entry : table) {
    INFO(entry.first << " is not in " CLCONV_BIN_DIR);
    CHECK(std::count(all.begin(), all.end(), entry.first) == 1);
  }
  for (const auto& program : all) {
    SECTION(program) {
      expect_usage_error(program, {"--no-such-setting", "1"});
      expect_usage_error(program, {"--no-such-setting"});
      const auto it = table.find(program);
      if (it == table.end()) continue;
      for (const auto& args : it->second) expect_usage_error(program, args);
    }
  }
}

TEST_CASE("a refused setting names the option and why", "[kept][cli][settings]") {
  const Outcome r = run_program("step8-separable", {"--method", "fused", "--columns", "bogus", "--platform", "none"});
  INFO(r.err);
  CHECK(r.status == 2);
  CHECK(r.err.find("--columns: step8-separable cannot take 'bogus' (it takes tile, direct)") != std::string::npos);
  const Outcome s = run_program("sweep", {"--steps", "6", "--set", "block=4x4,,8x8", "--platform", "none"});
  INFO(s.err);
  CHECK(s.status == 2);
  CHECK(s.err.find("--set block: an empty item") != std::string::npos);
  const Outcome k = run_program("kernel-info", {"--set", "bank=2", "--set", "bank=4", "--platform", "none"});
  INFO(k.err);
  CHECK(k.status == 2);
  CHECK(k.err.find("--set bank: given twice") != std::string::npos);
}

TEST_CASE("step 8 refuses a setting its method cannot run with, before building a kernel",
          "[kept][cli][settings]") {
  // Step 8 has no variants: --method picks the kernels, and a setting the
  // method does not use must stay at the value it runs with (the
  // documented defaults', which need the device's facts: so the device is
  // opened first). One line, exit 2, nothing written.
  const Args small = {"--image", "synthetic:40x24"};
  auto with = [&](Args args) {
    args.insert(args.end(), small.begin(), small.end());
    return args;
  };
  // An empty store of tuned winners: the runs below take the defaults.
  const ScratchCache cache("empty-store");
  expect_refusal("step8-separable", with({"--method", "fused", "--rows", "direct"}), 2,
                 "method fused runs both passes in one kernel: rows stays tile");
  expect_refusal("step8-separable", with({"--method", "strip", "--columns", "direct"}), 2,
                 "method strip runs both passes in one kernel: columns stays tile");
  expect_refusal("step8-separable", with({"--method", "box", "--filter", "random:5"}), 2,
                 "method box: the filter is not a box");
  expect_refusal("step8-separable", with({"--method", "box", "--filter", "box:5", "--block", "4x8"}), 2,
                 "method box has no block of outputs and no loop over tile rows");
  const Outcome k = run_program("kernel-info", {"--step", "8", "--set", "method=fused", "--set", "rows=direct"});
  INFO(k.err);
  CHECK(k.status == 2);
  CHECK(k.err_lines() == 1);
  CHECK(k.err.find("kernel-info: method fused runs both passes in one kernel: rows stays tile") == 0);
  // sweep and the tour refuse it before their first run: no row, no step
  // run before it (steps 1 and 2 come first in both).
  const Outcome sw = run_program("sweep", {"--steps", "1,2,8", "--images", "40x24", "--set", "method=fused",
                                           "--set", "rows=direct", "--reps", "1"});
  INFO(sw.out << sw.err);
  CHECK(sw.status == 2);
  CHECK(sw.err_lines() == 1);
  CHECK(sw.err.find("sweep: method fused runs both passes in one kernel: rows stays tile") == 0);
  CHECK(sw.out.empty());
  const Outcome tour = run_program("tour", {"--image", "synthetic:40x24", "--set", "method=box", "--filter", "random:5",
                                            "--reps", "1"});
  INFO(tour.out << tour.err);
  CHECK(tour.status == 2);
  CHECK(tour.err.find("method box: the filter is not a box") != std::string::npos);
  CHECK(tour.err.find("tour: step1-naive") == std::string::npos);
  CHECK(tour.out.empty());
  // The value the method runs with, given explicitly, is taken.
  const Outcome t = run_program("step8-separable", with({"--method", "fused", "--columns", "tile", "--reps", "1"}));
  INFO(t.err);
  CHECK(t.status == 0);
  CHECK(t.out.find("method=fused columns=tile") != std::string::npos);
}

namespace {

// A step with two variants and an option only the second uses
// (StepOption::used_by). No step of the course declares one now that
// step 8 picks its kernels by --method, so the check is held to its
// promise on this one.
class TwoVariants : public Step {
 public:
  std::string name() const override { return "two-variants"; }
  std::string summary() const override { return "a step for the settings check's test"; }
  std::vector<StepOption> options() const override {
    return {{"variant", "The kernel", "plain", {"plain", "tiled"}, {}},
            {"tile", "The tile (variant tiled)", "auto", {}, {}, one_of({"auto", "on", "off"}), {"tiled"}}};
  }
  std::string embedded_source() const override { return ""; }
  Launch prepare(DeviceContext&, const Problem&, const RunOptions&) override { throw Error("never run"); }
};

}  // namespace

TEST_CASE("a setting is taken where a variant that runs uses it", "[kept][cli][settings]") {
  const TwoVariants step;
  // The chosen variant must use each setting given, even at its default.
  for (const auto& [variant, value, taken] : std::vector<std::tuple<std::string, std::string, bool>>{
           {"tiled", "on", true}, {"tiled", "auto", true}, {"plain", "on", false}, {"plain", "auto", false},
           {"", "off", false}}) {
    RunOptions run;
    run.values = {{"tile", value}};
    if (!variant.empty()) run.values["variant"] = variant;
    INFO(variant << " tile=" << value);
    if (taken) {
      CHECK_NOTHROW(step.check_options(run));
    } else {
      try {
        step.check_options(run);
        FAIL("taken");
      } catch (const UsageError& e) {
        CHECK(std::string(e.what()) == "--tile " + value +
                                           ": two-variants's variant plain ignores it (used by variant tiled)");
      }
    }
  }
  // sweep and tour refuse a name only when no variant that runs uses it
  // (the check, without a device); another step that has the option and
  // runs keeps it legal.
  CHECK_NOTHROW(check_setting_names({{&step, {"plain", "tiled"}}}, {"tile"}, ""));
  CHECK_THROWS_AS(check_setting_names({{&step, {"plain"}}}, {"tile"}, ""), UsageError);
  const auto step7 = find_step("7");
  CHECK_NOTHROW(check_setting_names({{&step, {"plain"}}, {step7.get(), {"default"}}}, {"tile"}, ""));
  // Step 8: every method takes every option (what it cannot run with is
  // refused with the device's facts, above), and its old names are gone.
  const auto step8 = find_step("8");
  for (const char* method : {"auto", "passes", "fused", "fused-direct", "strip", "box"}) {
    RunOptions run;
    run.values = {{"method", method}, {"rows", "direct"}, {"columns", "tile"}, {"block", "4x2"}, {"unroll", "off"}};
    INFO(method);
    CHECK_NOTHROW(step8->check_options(run));
  }
  CHECK_NOTHROW(check_setting_names({{step8.get(), {"default"}}}, {"method", "rows", "columns", "block", "unroll"}, ""));
  for (const char* gone : {"variant", "fused-kernel", "column-block"})
    CHECK_THROWS_AS(check_setting_names({{step8.get(), {"default"}}}, {gone}, ""), UsageError);
}

TEST_CASE("a value a step takes is not refused by the check", "[kept][cli][settings]") {
  // The shared check must not refuse what the steps run: every choice and
  // test value of every option passes Step::check_options.
  for (const auto& step : all_steps())
    for (const auto& config : suite_configurations(*step)) {
      INFO(step->name() << " " << step->describe(config));
      CHECK_NOTHROW(step->check_options(config));
    }
}
