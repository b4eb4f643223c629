#include "common/machinery/device_choice.hpp"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <ostream>
#include <sstream>

#include "common/core/errors.hpp"
#include "common/core/text.hpp"
#include "common/core/program.hpp"
#include "common/machinery/cache_dir.hpp"
#include "common/machinery/platform/files.hpp"

namespace conv {
namespace {

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

// "3" -> 3; anything that is not a plain non-negative integer -> -1.
int as_index(const std::string& s) {
  if (s.empty() || s.size() > 6) return -1;
  for (char c : s)
    if (!std::isdigit(static_cast<unsigned char>(c))) return -1;
  return std::stoi(s);
}

std::string type_name(cl_device_type t) {
  if (t & CL_DEVICE_TYPE_GPU) return "gpu";
  if (t & CL_DEVICE_TYPE_CPU) return "cpu";
  if (t & CL_DEVICE_TYPE_ACCELERATOR) return "accelerator";
  return "other";
}

// Whether `dir` is (or can be made) a folder that takes a new file: tried
// with one (permission bits alone would not say: root passes them
// everywhere, and a read-only file system or an ACL can refuse anyway).
bool writable_folder(const std::string& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (!std::filesystem::is_directory(dir, ec)) return false;
  const std::string probe = dir + "/.clconv-probe." + std::to_string(process_id());
  NewFile file;
  if (file.open(probe, 0600)) return false;
  file.close();
  remove_file(probe);
  return true;
}

// PoCL keeps compiled kernels in $XDG_CACHE_HOME/pocl (or ~/.cache/pocl)
// and, when it cannot create that folder, offers no device at all: the
// program would say "no OpenCL device". Before the first OpenCL call, a
// cache folder that cannot be written is replaced by one under the
// temporary folder, through PoCL's own POCL_CACHE_DIR. Returns what was
// done, for the "no device" message.
//
// An empty POCL_CACHE_DIR counts as unset, as an empty XDG_CACHE_HOME or
// HOME does (common/machinery/cache_dir.hpp), and is removed from the environment
// first: PoCL itself would stop the process with an assertion
// (strlen(cache_topdir) > 0), a SIGABRT that a --kernel run would blame on
// the kernel.
std::string prepare_pocl_cache() {
  static const std::string note = [] {
    if (const char* set = std::getenv("POCL_CACHE_DIR"); set && !*set) unset_environment("POCL_CACHE_DIR");
    if (const char* set = std::getenv("POCL_CACHE_DIR"); set && *set) return std::string();
    const std::string folder = cache_dir("pocl");
    if (!folder.empty() && writable_folder(folder)) return std::string();
    const std::string problem = folder.empty()
                                    ? "PoCL has no cache folder (" + user_cache_root_unset() + ")"
                                    : "PoCL's cache folder " + folder + " cannot be written";
    std::error_code ec;
    const std::string tmp = (std::filesystem::temp_directory_path(ec) /
                             ("clconv-pocl-cache-" + user_tag())).string();
    std::filesystem::create_directories(tmp, ec);
    restrict_folder_to_user(tmp);
    if (!writable_folder(tmp)) return problem;
    set_environment("POCL_CACHE_DIR", tmp);
    return problem + ", so " + tmp + " was used";
  }();
  return note;
}

// PoCL's CPU driver runs a work-group's loops on one thread per core and,
// unless asked, lets the operating system move those threads between
// cores. On a 2-core machine that made a process's launches come in two
// speeds, a run's median up to twice another's (docs/results.md, "How the
// CPU is measured"). POCL_AFFINITY=1 pins thread k to core k; a value the
// environment already sets is kept.
void prepare_pocl_threads() { set_environment("POCL_AFFINITY", "1", /*overwrite=*/false); }

}  // namespace

// What is wrong with a POCL_CACHE_DIR the user set, or "": PoCL cannot
// build a kernel (or, in some versions, offer a device) without a cache
// folder it can write, and says only "failed to build the program".
std::string pocl_cache_dir_problem() {
  const char* set = std::getenv("POCL_CACHE_DIR");
  if (!set || !*set) return "";
  const std::string dir = set;
  std::error_code ec;
  const FileStatus st = file_status(dir, ec);
  const bool exists = !ec;
  if (exists && st.kind != FileKind::directory)
    return "POCL_CACHE_DIR=" + dir + " is not a folder (PoCL keeps compiled kernels there)";
  if (!writable_folder(dir))
    return "POCL_CACHE_DIR=" + dir + (exists ? " is a folder that cannot be written" : " cannot be created") +
           " (PoCL keeps compiled kernels there)";
  return "";
}

std::vector<DeviceEntry> enumerate_devices() {
  prepare_pocl_cache();
  prepare_pocl_threads();
  std::vector<cl::Platform> platforms;
  try {
    cl::Platform::get(&platforms);
  } catch (const cl::Error&) {
    return {};  // the ICD loader reports "no platform" as an error
  }
  std::vector<DeviceEntry> entries;
  int global = 0;
  for (std::size_t p = 0; p < platforms.size(); ++p) {
    std::vector<cl::Device> devices;
    try {
      platforms[p].getDevices(CL_DEVICE_TYPE_ALL, &devices);
    } catch (const cl::Error&) {
      continue;  // a platform with no devices
    }
    for (std::size_t d = 0; d < devices.size(); ++d)
      entries.push_back({static_cast<int>(p), static_cast<int>(d), global++, platforms[p],
                         devices[d]});
  }
  return entries;
}

void print_device_list(std::ostream& out) {
  auto entries = enumerate_devices();
  if (entries.empty()) {
    out << "No OpenCL platform found. Install an ICD (Debian: pocl-opencl-icd for the CPU)\n"
           "or register your GPU driver in /etc/OpenCL/vendors (see docs/README.md).\n";
    return;
  }
  int last_platform = -1;
  for (const auto& e : entries) {
    if (e.platform_index != last_platform) {
      last_platform = e.platform_index;
      out << "platform " << e.platform_index << ": "
          << trim(e.platform.getInfo<CL_PLATFORM_NAME>()) << " ("
          << trim(e.platform.getInfo<CL_PLATFORM_VERSION>()) << ")\n";
    }
    auto facts = read_facts(e.device);
    out << "  device " << e.device_index << " (global " << e.global_index << "): " << facts.name
        << " [" << type_name(e.device.getInfo<CL_DEVICE_TYPE>()) << "], driver " << facts.driver
        << ", " << facts.compute_units << " compute units, "
        << facts.global_mem_bytes / (1024 * 1024) << " MiB\n";
  }
}

DeviceEntry choose_device(const DeviceChoice& choice) {
  auto all = enumerate_devices();
  if (all.empty()) {
    const std::string cache = prepare_pocl_cache();
    if (const std::string problem = pocl_cache_dir_problem(); !problem.empty())
      throw Error("no OpenCL device found, and " + problem +
                  ": set POCL_CACHE_DIR to a writable folder, or unset it");
    throw Error("no OpenCL device found: install an ICD such as pocl-opencl-icd (see README)" +
                (cache.empty() ? std::string() : "; note: " + cache +
                                                     " (set POCL_CACHE_DIR to a writable folder)"));
  }

  std::string type = lower(choice.type.empty() ? "all" : choice.type);
  if (type != "all" && type != "cpu" && type != "gpu")
    throw UsageError("--device-type must be cpu, gpu or all, not '" + choice.type + "'");

  int platform_count = all.back().platform_index + 1;
  std::vector<DeviceEntry> candidates;
  int platform_index = -1;
  if (!choice.platform.empty()) {
    platform_index = as_index(choice.platform);
    if (platform_index >= 0) {
      if (platform_index >= platform_count)
        throw Error("platform index " + choice.platform + " is out of range: there " +
                    (platform_count == 1 ? "is 1 platform" : "are " + std::to_string(platform_count) + " platforms") +
                    " (see --list-devices)");
    } else {
      for (const auto& e : all)
        if (lower(e.platform.getInfo<CL_PLATFORM_NAME>()).find(lower(choice.platform)) !=
            std::string::npos) {
          platform_index = e.platform_index;
          break;
        }
      if (platform_index < 0)
        throw Error("no OpenCL platform name contains '" + choice.platform +
                    "' (see --list-devices)");
    }
  }
  for (const auto& e : all) {
    if (platform_index >= 0 && e.platform_index != platform_index) continue;
    auto t = e.device.getInfo<CL_DEVICE_TYPE>();
    if (type == "gpu" && !(t & CL_DEVICE_TYPE_GPU)) continue;
    if (type == "cpu" && !(t & CL_DEVICE_TYPE_CPU)) continue;
    candidates.push_back(e);
  }
  if (candidates.empty())
    throw Error("no " + (type == "all" ? std::string("") : type + " ") + "device" +
                (platform_index >= 0 ? " on platform " + std::to_string(platform_index) : "") +
                " (see --list-devices)");

  if (!choice.device.empty()) {
    int index = as_index(choice.device);
    if (index >= 0) {
      // Within a chosen platform the index is the platform's own numbering;
      // otherwise it is the global one from --list-devices.
      for (const auto& e : candidates)
        if ((platform_index >= 0 ? e.device_index : e.global_index) == index) return e;
      throw Error("device index " + choice.device + " is out of range" +
                  (platform_index >= 0 ? " on platform " + std::to_string(platform_index) : "") +
                  " (see --list-devices)");
    }
    for (const auto& e : candidates)
      if (lower(e.device.getInfo<CL_DEVICE_NAME>()).find(lower(choice.device)) !=
          std::string::npos)
        return e;
    throw Error("no OpenCL device name contains '" + choice.device + "' (see --list-devices)");
  }
  for (const auto& e : candidates)
    if (e.device.getInfo<CL_DEVICE_TYPE>() & CL_DEVICE_TYPE_GPU) return e;
  return candidates.front();
}

DeviceContext::DeviceContext(const DeviceChoice& choice) : DeviceContext(choose_device(choice)) {
  set_builder([context = context_, device = device_](const std::string& source, const std::string& options,
                                                      const std::string& label) {
    return with_build_hint(label, [&] { return build_program(context, device, source, options, label); });
  });
}

cl::Program with_build_hint(const std::string& label, const std::function<cl::Program()>& build) {
  try {
    return build();
  } catch (const BuildError&) {
    // PoCL's log then says only "failed to build the program": name the cause.
    if (const std::string problem = pocl_cache_dir_problem(); !problem.empty())
      throw Error("kernel " + label + " could not be built: " + problem +
                  "; set POCL_CACHE_DIR to a writable folder, or unset it");
    throw;
  }
}

}  // namespace conv
