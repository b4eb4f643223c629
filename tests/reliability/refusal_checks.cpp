#include "tests/reliability/refusal_checks.hpp"

#include "tests/catch.hpp"

#include <filesystem>

#include "common/machinery/device_choice.hpp"
#include "common/machinery/guard.hpp"
#include "common/machinery/program_cache.hpp"
#include "common/machinery/reference.hpp"
#include "common/machinery/registry.hpp"
#include "common/machinery/report.hpp"
#include "common/machinery/sanitizer.hpp"
#include "common/machinery/settings.hpp"
#include "tests/files.hpp"

namespace conv::test {

std::vector<std::string> step_programs() {
  std::vector<std::string> names;
  for (auto& s : all_steps()) names.push_back(s->name());
  return names;
}

std::string fresh_dir(const std::string& name) {
  static int count = 0;
  const std::string dir = scratch_dir() + "/" + name + "-" + std::to_string(++count);
  std::filesystem::create_directories(dir);
  return dir;
}

Outcome expect_refusal(const std::string& program, std::vector<std::string> args, int status,
                    const std::string& needle, const Env& env, bool one_line) {
  const std::string dir = fresh_dir(program);
  // The histogram writes its counts as CSV, sweep its rows; the steps write images.
  const std::string output = dir + (program == "histogram" || program == "sweep" ? "/out.csv" : "/out.pfm");
  args.insert(args.end(), {"--output", output, "--reps", "1"});
  const Outcome r = run_program(program, args, env);
  std::string command = program;
  for (const auto& a : args) command += " " + a;
  INFO(command << "\nstatus " << r.status << ", signal " << r.signal << ", stderr:\n" << r.err);
  CHECK_FALSE(r.timed_out);
  CHECK(r.signal == 0);
  CHECK(r.status == status);
  if (one_line) {
    CHECK(r.err_lines() == 1);
    CHECK(r.err.rfind(program + ": ", 0) == 0);
  } else {  // the OpenCL compiler may print its own lines before ours
    CHECK((r.err.rfind(program + ": ", 0) == 0 || r.err.find("\n" + program + ": ") != std::string::npos));
  }
  CHECK(r.err.find(needle) != std::string::npos);
  CHECK_FALSE(std::filesystem::exists(output));
  for (const auto& entry : std::filesystem::directory_iterator(dir))
    CHECK((entry.path().filename().string().find(".tmp.") == std::string::npos &&
           entry.path().filename().string().find(".partial") == std::string::npos &&
           entry.path().filename().string().rfind(".clconv-", 0) != 0));
  return r;
}

conv::ChildResult run_bounded(const std::string& program, const std::vector<std::string>& args,
                              std::uint64_t memory_bytes, double timeout_s) {
  conv::ChildSpec spec;
  spec.argv = {std::string(CLCONV_BIN_DIR) + "/" + program};
  spec.argv.insert(spec.argv.end(), args.begin(), args.end());
  spec.memory_bytes = conv::kAddressSanitizer ? 0 : memory_bytes;
  spec.timeout_s = timeout_s;
  spec.out_path = scratch_dir() + "/bounded.stdout";
  spec.err_path = scratch_dir() + "/bounded.stderr";
  return conv::run_child(spec);
}

}  // namespace conv::test
