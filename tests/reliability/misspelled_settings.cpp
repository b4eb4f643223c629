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
#include <filesystem>
#include <map>
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
  // Options a variant ignores are still checked.
  m["step8-separable"].push_back({"--variant", "fused", "--columns", "bogus"});
  m["step8-separable"].push_back({"--variant", "passes", "--fused-kernel", "bogus"});
  m["step8-separable"].push_back({"--block", "5x4"});
  // A setting the chosen variant ignores, even a value it could take (or
  // the default itself, given explicitly).
  m["step8-separable"].push_back({"--variant", "fused", "--columns", "tile"});
  m["step8-separable"].push_back({"--variant", "fused", "--rows", "direct"});
  m["step8-separable"].push_back({"--variant", "fused", "--column-block", "4x8"});
  m["step8-separable"].push_back({"--variant", "passes", "--fused-kernel", "tile"});
  m["step8-separable"].push_back({"--variant", "passes", "--fused-kernel", "auto"});
  m["step6-multioutput"].push_back({"--block", "5x4"});
  m["kernel-info"] = {{"--variant", "bogus"}, {"--set", "bogus=1"}, {"--set", "=4"}, {"--set", "block"},
                      {"--set", "block="}, {"--step", "1", "--set", "bank=2"}, {"--set", "variant=rows"},
                      {"--set", "block=5x4"}, {"--step", "8", "--variant", "fused", "--set", "columns=bogus"},
                      {"--step", "5", "--wg", "3x5"}, {"--step", "99"},
                      {"--step", "8", "--variant", "fused", "--set", "columns=tile"},
                      {"--step", "8", "--variant", "passes", "--set", "fused-kernel=direct"},
                      {"--set", "bank=2", "--set", "bank=4"}, {"--set", "block=4x1", "--set", "block=8x1"}};
  m["sweep"] = {{"--set", "blok=8x2"}, {"--set", "block=5x4"}, {"--set", "=4"}, {"--set", "block=,"},
                {"--set", "variant=rows"}, {"--variants", "bogus"}, {"--steps", "1", "--set", "bank=2"},
                {"--steps", "8", "--set", "columns=tile,bogus"}, {"--steps", "99"},
                {"--steps", "8", "--variants", "fused", "--set", "columns=tile"},
                {"--steps", "8", "--variants", "passes", "--set", "fused-kernel=tile,direct"},
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

TEST_CASE("a refused setting names the variant that ignores it", "[kept][cli][settings]") {
  const Outcome r = run_program("step8-separable", {"--variant", "fused", "--columns", "tile", "--platform", "none"});
  INFO(r.err);
  CHECK(r.status == 2);
  CHECK(r.err.find("--columns tile: step8-separable's variant fused ignores it") != std::string::npos);
  const Outcome s = run_program("sweep", {"--steps", "6", "--set", "block=4x4,,8x8", "--platform", "none"});
  INFO(s.err);
  CHECK(s.status == 2);
  CHECK(s.err.find("--set block: an empty item") != std::string::npos);
  const Outcome k = run_program("kernel-info", {"--set", "bank=2", "--set", "bank=4", "--platform", "none"});
  INFO(k.err);
  CHECK(k.status == 2);
  CHECK(k.err.find("--set bank: given twice") != std::string::npos);
}

TEST_CASE("a setting is taken where a variant that runs uses it", "[kept][cli][settings]") {
  // The variants that use an option take it; sweep and tour refuse a name
  // only when no variant that runs uses it (the check, without a device).
  const auto step8 = find_step("8");
  for (const auto& [variant, name, value] : std::vector<std::tuple<std::string, std::string, std::string>>{
           {"passes", "columns", "tile"}, {"auto", "columns", "direct"}, {"fused", "fused-kernel", "direct"},
           {"auto", "fused-kernel", "tile"}, {"fused", "block", "4x2"}, {"passes", "rows", "direct"}}) {
    RunOptions run;
    run.values = {{"variant", variant}, {name, value}};
    INFO(variant << " " << name << "=" << value);
    CHECK_NOTHROW(step8->check_options(run));
  }
  CHECK_NOTHROW(check_setting_names({{step8.get(), {"fused", "passes"}}}, {"columns"}, ""));
  CHECK_THROWS_AS(check_setting_names({{step8.get(), {"fused"}}}, {"columns"}, ""), UsageError);
  CHECK_THROWS_AS(check_setting_names({{step8.get(), {"passes"}}}, {"fused-kernel"}, ""), UsageError);
  // Another step that has the option and runs keeps it legal.
  const auto step6 = find_step("6");
  CHECK_NOTHROW(check_setting_names({{step8.get(), {"fused"}}, {step6.get(), {"default"}}}, {"block"}, ""));
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
