#include "tests/reliability/process.hpp"

#include <catch2/catch.hpp>

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <thread>

#include "common/registry.hpp"
#include "tests/files.hpp"

namespace conv::test {

int Outcome::err_lines() const { return static_cast<int>(std::count(err.begin(), err.end(), '\n')); }

Outcome run_program(const std::string& program, const std::vector<std::string>& args,
                    const Env& env, int timeout_s) {
  const std::string exe = std::string(CLCONV_BIN_DIR) + "/" + program;
  const std::string out = scratch_dir() + "/run.stdout", err = scratch_dir() + "/run.stderr";
  std::vector<std::string> argv_text = {exe};
  argv_text.insert(argv_text.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& a : argv_text) argv.push_back(a.data());
  argv.push_back(nullptr);
  // The environment is built before fork(): the child of a threaded process
  // (PoCL starts threads) may only call async-signal-safe functions.
  std::vector<std::string> env_text;
  for (char** e = environ; *e; ++e) {
    const std::string entry = *e;
    const bool replaced = std::any_of(env.begin(), env.end(), [&](const auto& kv) {
      return entry.rfind(kv.first + "=", 0) == 0;
    });
    if (!replaced) env_text.push_back(entry);
  }
  for (const auto& [name, value] : env) env_text.push_back(name + "=" + value);
  std::vector<char*> envp;
  for (auto& e : env_text) envp.push_back(e.data());
  envp.push_back(nullptr);
  const pid_t pid = fork();
  if (pid == 0) {
    const int o = open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    const int e = open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    const int in = open("/dev/null", O_RDONLY);
    dup2(o, 1);
    dup2(e, 2);
    dup2(in, 0);
    execve(exe.c_str(), argv.data(), envp.data());
    _exit(127);
  }
  Outcome r;
  int wstatus = 0;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(timeout_s);
  while (waitpid(pid, &wstatus, WNOHANG) == 0) {
    if (std::chrono::steady_clock::now() > deadline) {
      kill(pid, SIGKILL);
      waitpid(pid, &wstatus, 0);
      r.timed_out = true;
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  if (WIFEXITED(wstatus)) r.status = WEXITSTATUS(wstatus);
  if (WIFSIGNALED(wstatus)) r.signal = WTERMSIG(wstatus);
  const auto o = read_bytes(out), e = read_bytes(err);
  r.out.assign(o.begin(), o.end());
  r.err.assign(e.begin(), e.end());
  return r;
}

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
  // The histogram writes its counts as CSV; the steps write images.
  const std::string output = dir + (program == "histogram" ? "/out.csv" : "/out.pfm");
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
    CHECK(entry.path().filename().string().find(".tmp.") == std::string::npos);
  return r;
}

}  // namespace conv::test
