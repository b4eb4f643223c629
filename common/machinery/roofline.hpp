// The roofline: the device's measured copy bandwidth and FP32 FMA
// throughput, probed once per device and driver and cached in the user's
// cache folder. (The limits the device reports, checked before a launch,
// are common/core/device_checks.hpp.)
#pragma once
#include <functional>
#include <string>

#include "common/core/device.hpp"

namespace conv {

struct DeviceLimits {
  double copy_gbps = 0;    // bytes read + bytes written per second, / 1e9
  double fma_gflops = 0;   // 2 flops per FMA
};

// Runs both probes (each: warm-up, then the best of several launches, since
// a limit is the most the device does, not its typical run).
DeviceLimits probe_limits(DeviceContext& device);

// Cached in $XDG_CACHE_HOME/clconv/limits.tsv (or ~/.cache/...), keyed by
// platform, device, driver and probe version. `refresh` ignores the cache.
// Cached figures outside plausible ranges (below 1 GB/s or 1 GFLOP/s) are
// measured again; probing holds a lock (limits.tsv.lock) so that programs
// started together probe once. A lock another program holds for more than
// 60 s (CLCONV_LIMITS_LOCK_WAIT) is given up on: the limits are measured
// without the cache, which is then neither read nor written. `note`, when
// given, is called with a line to print ("measuring the device limits...",
// and why when it is not the usual first run) only when a probe runs.
DeviceLimits device_limits(DeviceContext& device, bool refresh = false,
                           const std::function<void(const std::string&)>& note = {});

// The roofline bound for a convolution: the time it cannot beat at the
// measured bandwidth (bytes) or FMA rate (flops), whichever is larger. The
// result's percentage is that bound's time over the measured time.
struct RooflineShare {
  double percent = 0;
  std::string limit;  // "copy" or "fma"
};
RooflineShare roofline_share(const DeviceLimits& limits, double flops, double bytes,
                             double measured_ms);

}  // namespace conv
