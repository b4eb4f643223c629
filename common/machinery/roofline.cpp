#include "common/machinery/roofline.hpp"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>
#include <vector>

#include "common/machinery/cache_dir.hpp"
#include "common/machinery/image_files.hpp"
#include "common/machinery/platform/files.hpp"
#include "common/core/timing.hpp"

namespace conv {
namespace embedded {
extern const char* const common_probes;
}

namespace {

constexpr const char* kProbeVersion = "probe-v2";

std::string cache_file() {
  const std::string folder = cache_dir("clconv");
  return folder.empty() ? "" : folder + "/limits.tsv";
}

std::string cache_key(const DeviceFacts& f) {
  std::string key = std::string(kProbeVersion) + "|" + f.platform + "|" + f.name + "|" + f.driver;
  std::replace(key.begin(), key.end(), '\t', ' ');
  return key;
}

double best_ms(const std::function<cl::Event()>& launch) {
  return time_launches(launch, 2, 7).min_ms;
}

}  // namespace

DeviceLimits probe_limits(DeviceContext& device) {
  cl::Program program = device.program(embedded::common_probes, "", "probes.cl");
  auto& queue = device.queue();
  const bool gpu = device.facts().is_gpu;
  DeviceLimits limits;

  // Copy: 256 MiB each way on a GPU (far beyond any cache), 64 MiB on a CPU.
  std::size_t bytes = (gpu ? 256u : 64u) << 20;
  bytes = std::min<std::size_t>(bytes, device.facts().max_alloc_bytes / 2 / 16 * 16);
  cl::Buffer in(device.context(), CL_MEM_READ_ONLY, bytes);
  cl::Buffer out(device.context(), CL_MEM_WRITE_ONLY, bytes);
  queue.enqueueFillBuffer(in, 1.0f, 0, bytes);
  cl::Kernel copy(program, "copy_probe");
  copy.setArg(0, in);
  copy.setArg(1, out);
  double copy_ms = best_ms([&] {
    cl::Event e;
    queue.enqueueNDRangeKernel(copy, cl::NullRange, cl::NDRange(bytes / 16), cl::NullRange,
                               nullptr, &e);
    return e;
  });
  limits.copy_gbps = 2.0 * static_cast<double>(bytes) / (copy_ms * 1e6);

  // FMA: enough work-items to fill every compute unit many times over.
  const std::size_t items = gpu ? (std::size_t{1} << 18) : (std::size_t{1} << 11);
  const int iterations = gpu ? 16 : 64;
  cl::Buffer sink(device.context(), CL_MEM_WRITE_ONLY, items * sizeof(float));
  cl::Kernel fma(program, "fma_probe");
  fma.setArg(0, sink);
  fma.setArg(1, 0.999f);
  fma.setArg(2, 0.001f);
  fma.setArg(3, iterations);
  double fma_ms = best_ms([&] {
    cl::Event e;
    queue.enqueueNDRangeKernel(fma, cl::NullRange, cl::NDRange(items), cl::NullRange, nullptr, &e);
    return e;
  });
  const double flops = 2.0 * 1024 * iterations * static_cast<double>(items);
  limits.fma_gflops = flops / (fma_ms * 1e6);
  return limits;
}

namespace {

// Figures no OpenCL device reaches or falls below: 1 GB/s to 100 TB/s of
// copy bandwidth, 1 GFLOP/s to 10 PFLOP/s (a single CPU core's memory
// copies several GB/s, and its vector unit does several GFLOP/s). A cached
// line outside them (an edited file, a probe that went wrong) is measured
// again, not believed: a cached 0.01 GB/s made a run "18,000 % of limit".
bool plausible(const DeviceLimits& l) {
  return l.copy_gbps >= 1 && l.copy_gbps <= 1e5 && l.fma_gflops >= 1 && l.fma_gflops <= 1e7;
}

// The cached figures for `key` (false: none that can be trusted), and the
// other devices' lines to keep.
bool read_cache(const std::string& file, const std::string& key, DeviceLimits& found,
                std::vector<std::string>& kept) {
  kept.clear();
  // Not through a link; a FIFO would block the read forever.
  if (!cache_entry_usable(file)) return false;
  std::ifstream in(file);
  std::string line;
  bool have = false;
  while (std::getline(in, line)) {
    std::istringstream s(line);
    std::string k, extra;
    DeviceLimits l;
    if (!std::getline(s, k, '\t') || !(s >> l.copy_gbps >> l.fma_gflops) || (s >> extra)) continue;
    if (k != key) {
      kept.push_back(line);
    } else if (plausible(l)) {
      found = l;
      have = true;
    }
  }
  return have;
}

// How long a program waits for another's lock on the cache: a probe takes
// seconds, so a lock held longer belongs to a program that is stuck or
// stopped (Ctrl-Z). CLCONV_LIMITS_LOCK_WAIT (seconds) changes it.
double lock_wait_seconds() {
  const char* text = std::getenv("CLCONV_LIMITS_LOCK_WAIT");
  if (text && *text) {
    char* end = nullptr;
    const double s = std::strtod(text, &end);
    if (end && *end == '\0' && s >= 0 && s <= 3600) return s;
  }
  return 60;
}

// An exclusive lock on FILE.lock while probing, so that programs started
// together do not probe at once (each would measure the others' load) nor
// overwrite each other's line. No lock (an unwritable folder, a link or
// anything but a regular file there, a file system without locks): go on
// without. A lock still held by another program after lock_wait_seconds():
// busy() is true, and the caller measures without the cache.
class CacheLock {
 public:
  explicit CacheLock(const std::string& file) : lock_(file + ".lock") {
    if (!lock_.opened()) return;
    const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(lock_wait_seconds());
    while (lock_.try_lock() == FileLock::Try::busy) {
      if (std::chrono::steady_clock::now() >= until) {
        busy_ = true;
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  }
  // Another program held the lock for the whole wait.
  bool busy() const { return busy_; }
  const std::string& path() const { return lock_.path(); }

 private:
  FileLock lock_;  // released when this object goes
  bool busy_ = false;
};

}  // namespace

DeviceLimits device_limits(DeviceContext& device, bool refresh,
                           const std::function<void(const std::string&)>& note) {
  const std::string file = cache_file();
  const std::string key = cache_key(device.facts());
  std::vector<std::string> kept;
  DeviceLimits cached;
  const auto probe = [&](const std::string& why) {
    if (note) note("measuring the device limits" + why + "...");
    return probe_limits(device);
  };
  if (file.empty()) return probe(" (no cache folder: " + user_cache_root_unset() + ")");
  if (!refresh && read_cache(file, key, cached, kept)) return cached;
  std::error_code ec;
  std::filesystem::create_directories(std::filesystem::path(file).parent_path(), ec);
  const CacheLock lock(file);
  if (lock.busy())  // measured, but neither read from the cache nor written to it
    return probe(" without the cache: " + lock.path() + " was held by another program for " +
                 std::to_string(static_cast<long long>(lock_wait_seconds())) + " s");
  // Another program may have probed while this one waited for the lock.
  if (!refresh && read_cache(file, key, cached, kept)) return cached;
  const DeviceLimits limits = probe(refresh ? "" : " (cached after the first run)");
  if (!plausible(limits)) return limits;
  std::ostringstream s;
  s.precision(17);
  for (const auto& line : kept) s << line << '\n';
  s << key << '\t' << limits.copy_gbps << '\t' << limits.fma_gflops << '\n';
  const std::string text = s.str();
  // A new file renamed over the cache's path, and nothing where a link or
  // anything but a regular file is (common/machinery/cache_dir.hpp): a cache that
  // cannot be written only costs a probe next time.
  write_cache_file(file, std::vector<std::uint8_t>(text.begin(), text.end()));
  return limits;
}

RooflineShare roofline_share(const DeviceLimits& limits, double flops, double bytes,
                             double measured_ms) {
  RooflineShare share;
  if (measured_ms <= 0 || limits.copy_gbps <= 0 || limits.fma_gflops <= 0) return share;
  const double copy_ms = bytes / (limits.copy_gbps * 1e6);
  const double fma_ms = flops / (limits.fma_gflops * 1e6);
  share.limit = copy_ms >= fma_ms ? "copy" : "fma";
  share.percent = 100.0 * std::max(copy_ms, fma_ms) / measured_ms;
  return share;
}

}  // namespace conv
