#include "coursework/sandbox.hpp"

#include <glob.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <thread>

#include "common/core/errors.hpp"
#include "common/machinery/sanitizer.hpp"
#include "coursework/case_caps.hpp"

namespace fs = std::filesystem;

namespace conv::grade {

namespace {

// AddressSanitizer reserves terabytes of address space for its shadow
// memory, so a sanitized build cannot run under an address-space limit.
constexpr bool kSanitized = conv::kAddressSanitizer;

// The limits of a case's process. Memory: address space, which PoCL's
// compiler and threads need a few GiB of (checked on the 4096x4096 case);
// processes: the threads of PoCL's pool for every case running at once,
// with room to spare, and far from a fork bomb's thousands.
std::uint64_t memory_limit() {
  const std::uint64_t cores = std::max(1u, std::thread::hardware_concurrency());
  return kSanitized ? 0 : (std::uint64_t{4} << 30) + cores * (std::uint64_t{64} << 20);
}
constexpr std::uint64_t kFileLimit = std::uint64_t{256} << 20;  // a 4096x4096 PFM is 64 MiB
constexpr std::uint64_t kShmBytes = std::uint64_t{16} << 20;    // /dev/shm in the sandbox

bool starts_with(const std::string& s, const std::string& prefix) { return s.rfind(prefix, 0) == 0; }

// The variables that reach the runner: the device's and the drivers' own
// settings, the sanitizers' options; nothing of the grader's HOME or PATH.
bool passed_through(const std::string& name) {
  for (const char* prefix : {"POCL_", "CLCONV_", "OCL_ICD", "ASAN_", "UBSAN_", "LSAN_", "OCLGRIND"})
    if (starts_with(name, prefix)) return name != "POCL_CACHE_DIR";
  return false;
}

Env runner_env(const Sandbox& box, const std::string& work) {
  Env env = {{"HOME", work}, {"TMPDIR", work}, {"POCL_CACHE_DIR", work + "/pocl-cache"}};
  for (char** e = environ; *e; ++e) {
    const std::string entry = *e;
    const std::string name = entry.substr(0, entry.find('='));
    if (passed_through(name)) env.push_back({name, entry.substr(name.size() + 1)});
  }
  for (const auto& kv : box.env) env.push_back(kv);
  return env;
}

// The system, read-only: /usr and what links into it, the ICD registry,
// /sys (PoCL reads the CPU's topology and memory there), a GPU's device
// nodes where there are any.
void add_system(std::vector<std::string>& a) {
  a.insert(a.end(), {"--ro-bind", "/usr", "/usr"});
  for (const char* top : {"/bin", "/sbin", "/lib", "/lib64", "/lib32", "/libx32"}) {
    std::error_code ec;
    if (fs::is_symlink(top, ec)) a.insert(a.end(), {"--symlink", fs::read_symlink(top, ec).string(), top});
    else if (fs::is_directory(top, ec)) a.insert(a.end(), {"--ro-bind", top, top});
  }
  for (const char* path : {"/etc/OpenCL", "/etc/ld.so.cache", "/etc/alternatives", "/opt", "/sys"})
    a.insert(a.end(), {"--ro-bind-try", path, path});
  if (const char* vendors = std::getenv("OCL_ICD_VENDORS"); vendors && *vendors)
    a.insert(a.end(), {"--ro-bind-try", vendors, vendors});
  // The sanitizers' suppression files (the asan preset's LSAN_OPTIONS and
  // UBSAN_OPTIONS name them), read-only where the options say they are.
  for (const char* name : {"ASAN_OPTIONS", "LSAN_OPTIONS", "UBSAN_OPTIONS"}) {
    const char* value = std::getenv(name);
    if (!value) continue;
    std::istringstream options(value);
    std::string option;
    while (std::getline(options, option, ':'))
      if (option.rfind("suppressions=", 0) == 0 && option.size() > 13 && option[13] == '/')
        a.insert(a.end(), {"--ro-bind-try", option.substr(13), option.substr(13)});
  }
  // /dev and its /dev/shm are bubblewrap's own tmpfs, which is memory: a
  // small one of its own for /dev/shm, and /dev read-only.
  // A GPU's device nodes are bound before /dev is made read-only: a node in
  // a folder of its own (/dev/nvidia-caps, /dev/dri) needs its folder made.
  a.insert(a.end(), {"--proc", "/proc", "--dev", "/dev", "--size", std::to_string(kShmBytes), "--tmpfs", "/dev/shm"});
  for (const char* pattern : {"/dev/dri", "/dev/kfd", "/dev/nvidia*"}) {
    glob_t g{};
    if (glob(pattern, 0, nullptr, &g) == 0)
      for (std::size_t i = 0; i < g.gl_pathc; ++i) a.insert(a.end(), {"--dev-bind", g.gl_pathv[i], g.gl_pathv[i]});
    globfree(&g);
  }
  a.insert(a.end(), {"--remount-ro", "/dev"});
}

}  // namespace

std::string find_bwrap() {
  if (const char* forced = std::getenv("CLCONV_BWRAP"))
    return access(forced, X_OK) == 0 ? forced : "";
  const char* path = std::getenv("PATH");
  std::istringstream dirs(path ? path : "/usr/bin:/bin");
  for (std::string dir; std::getline(dirs, dir, ':');)
    if (!dir.empty() && access((dir + "/bwrap").c_str(), X_OK) == 0) return dir + "/bwrap";
  return "";
}

std::string bwrap_lacks(const std::string& bwrap) {
  ChildSpec spec;
  spec.argv = {bwrap, "--help"};
  spec.timeout_s = 10;
  spec.hold_err = true;
  const std::string help_file = fs::temp_directory_path().string() + "/clconv-bwrap-help-" + std::to_string(getpid());
  spec.out_path = help_file;
  ChildResult r;
  try {
    r = run_child(spec);
  } catch (const std::exception& e) {
    std::error_code ec;
    fs::remove(help_file, ec);
    return bwrap + " --help does not run: " + one_line(e.what());
  }
  std::error_code ec;
  fs::remove(help_file, ec);
  const std::string help = r.out + r.err;
  for (const char* option : {"--disable-userns", "--size", "--remount-ro", "--unshare-user"})
    if (help.find(std::string(option) + " ") == std::string::npos)
      return bwrap + " lacks " + option + " (bubblewrap 0.8.0 or later has it)";
  return "";
}

std::uint64_t process_limit(const Sandbox& box) {
  // RLIMIT_NPROC counts every process and thread of a user (since Linux
  // 5.14, of a user in a user namespace, and of its owner in the namespaces
  // around it). For uid 65534 (the grader is root) it is the allowance: the
  // cases running at once (--jobs) share it. For an instructor's own
  // account it is what that account runs now plus the allowance, so that
  // the case can start about that many more and no more.
  const std::uint64_t allowance = kProcessAllowance + 64 * std::uint64_t{std::max(1u, std::thread::hardware_concurrency())};
  if (box.enabled && box.drop_to_nobody) return allowance;
  return allowance + static_cast<std::uint64_t>(user_tasks(getuid()));
}

std::uint64_t case_memory_cap() {
  // The same as one process may map, plus room for the sandbox's own.
  const std::uint64_t cores = std::max(1u, std::thread::hardware_concurrency());
  return (std::uint64_t{4} << 30) + cores * (std::uint64_t{64} << 20) + (std::uint64_t{256} << 20);
}

ChildSpec sandboxed(const Sandbox& box, const std::string& work, const std::vector<std::string>& args,
                    double timeout_s, const std::vector<std::string>& wrapper) {
  ChildSpec spec;
  spec.timeout_s = timeout_s;
  spec.file_bytes = kFileLimit;
  spec.no_core_dumps = true;
  spec.memory_bytes = box.gpu ? 0 : memory_limit();  // on a GPU, case_memory_cap alone (sandbox.hpp)
  spec.cpu_seconds = static_cast<std::uint64_t>(timeout_s * std::max(1u, std::thread::hardware_concurrency())) + 10;
  // The caps on the case as a whole, which the grader checks while it runs.
  CaseCaps caps;
  caps.disk_folder = work;
  caps.disk_bytes = kCaseDiskBytes;
  caps.tree_memory_bytes = case_memory_cap();
  caps.tree_threads = kCaseThreads;
  spec.over_cap = cap_check(caps);
  if (!box.enabled) {
    spec.processes = process_limit(box);
    spec.argv = wrapper;
    spec.argv.push_back(box.runner);
    spec.argv.insert(spec.argv.end(), args.begin(), args.end());
    spec.env = runner_env(box, work);
    return spec;
  }
  spec.processes = process_limit(box);
  spec.drop_to_nobody = box.drop_to_nobody;
  auto& a = spec.argv;
  // A user namespace of its own, in which no other can be made (no
  // `unshare -U` for a namespace where it would be root).
  a = {box.bwrap, "--unshare-all", "--unshare-user", "--disable-userns", "--die-with-parent", "--new-session",
       "--clearenv"};
  add_system(a);
  a.insert(a.end(), {"--ro-bind", box.runner, kRunnerInside, "--ro-bind", box.inputs, kInputsInside,
                     "--bind", work, kWorkInside, "--chdir", kWorkInside,
                     "--setenv", "PATH", "/usr/bin:/bin"});
  for (const auto& [name, value] : runner_env(box, kWorkInside)) a.insert(a.end(), {"--setenv", name, value});
  // A wrapper program outside /usr (one $OCLGRIND names) is shown where it is.
  if (!wrapper.empty() && starts_with(wrapper[0], "/") && !starts_with(wrapper[0], "/usr/"))
    a.insert(a.end(), {"--ro-bind", wrapper[0], wrapper[0]});
  // bubblewrap's root is a tmpfs too: read-only once every mount point on it
  // is made, so the case's folder and /dev/shm are all it can write.
  a.insert(a.end(), {"--remount-ro", "/"});
  a.insert(a.end(), wrapper.begin(), wrapper.end());
  a.push_back(kRunnerInside);
  a.insert(a.end(), args.begin(), args.end());
  return spec;
}

std::string inside(const Sandbox& box, const std::string& work, const std::string& path) {
  if (!box.enabled) return path;
  if (starts_with(path, work + "/")) return kWorkInside + path.substr(work.size());
  if (starts_with(path, box.inputs + "/")) return kInputsInside + path.substr(box.inputs.size());
  throw Error(path + ": outside the folders the sandbox sees");
}

void hand_over(const Sandbox& box, const std::string& work) {
  if (!box.enabled || !box.drop_to_nobody) return;
  if (chown(work.c_str(), 65534, 65534) != 0)
    throw Error(work + ": cannot hand the folder to uid 65534 for the sandbox");
}

std::string probe_sandbox(const Sandbox& box, const std::string& scratch) {
  const std::string work = scratch + "/probe";
  fs::create_directories(work);
  fs::permissions(work, fs::perms::owner_all);
  hand_over(box, work);
  ChildSpec spec = sandboxed(box, work, {"--probe"}, 60);
  spec.out_path = scratch + "/probe.stdout";
  spec.err_path = scratch + "/probe.stderr";
  ChildResult r;
  try {
    r = run_child(spec);
  } catch (const std::exception& e) {
    return e.what();
  }
  if (r.status == 0 && r.out.find("sandbox ok") != std::string::npos) {
    // The device a case opens is the one the grader was asked for: a
    // driver the sandbox hides (its files not bound, its address space
    // refused) would otherwise leave the cases on another platform.
    const std::string prefix = "sandbox ok, device: ";
    const auto at = r.out.find(prefix);
    const std::string seen = at == std::string::npos ? "" : r.out.substr(at + prefix.size(),
                                                                          r.out.find('\n', at) - at - prefix.size());
    if (box.device_name.empty() || seen == box.device_name) return "";
    return one_line("a case sees the device '" + seen + "', not '" + box.device_name +
                    "' the grader was asked for (the sandbox hides a file or the address space its driver needs)");
  }
  std::string why = r.err.substr(0, r.err.find('\n'));
  if (why.empty()) why = r.timed_out ? "it did not start within 60 s" : "exit status " + std::to_string(r.status);
  return one_line(why);
}

}  // namespace conv::grade
