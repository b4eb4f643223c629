// Finding and choosing an OpenCL device (--list-devices, --platform,
// --device, --device-type), and what PoCL needs before its first call: a
// cache folder it can write. DeviceContext(const DeviceChoice&)
// (common/core/device.hpp) is defined in device_choice.cpp.
#pragma once
#include <functional>
#include <iosfwd>
#include <string>
#include <vector>

#include "common/core/device.hpp"

namespace conv {

// What the user asked for on the command line (or through CLCONV_PLATFORM,
// CLCONV_DEVICE and CLCONV_DEVICE_TYPE). Empty strings mean "not given".
struct DeviceChoice {
  std::string platform;      // index or case-insensitive name substring
  std::string device;        // index or case-insensitive name substring
  std::string type = "all";  // cpu | gpu | all
};

// Every device of every platform, in a stable order. Returns an empty list
// (not an error) when no OpenCL platform is installed.
std::vector<DeviceEntry> enumerate_devices();

// Prints the listing used by --list-devices.
void print_device_list(std::ostream& out);

// Applies a DeviceChoice; throws Error naming the problem (index out of
// range, no match for a name, no device of that type). Without a --device,
// the first GPU wins, then the first device of any kind.
DeviceEntry choose_device(const DeviceChoice& choice);

// What is wrong with a POCL_CACHE_DIR the user set, or "": PoCL cannot
// build a kernel (or, in some versions, offer a device) without a cache
// folder it can write, and says only "failed to build the program".
std::string pocl_cache_dir_problem();

// build(), with its BuildError replaced by one that names the cause when
// PoCL's cache folder is the problem.
cl::Program with_build_hint(const std::string& label, const std::function<cl::Program()>& build);

}  // namespace conv
