// What the histogram executable does once its command line is parsed: the
// measured runs (the default) or the phase-by-phase --breakdown.
#pragma once
#include <string>
#include <vector>

#include "common/machinery/device_choice.hpp"
#include "common/machinery/program_cache.hpp"
#include "histogram/variants.hpp"

namespace conv::histogram {

struct Options {
  std::vector<std::string> images = {"synthetic:7728x4354"};
  // Comma-separated, or "all" (every lesson variant, serial first); "auto":
  // the tuned winner for each image's pixel count, else the documented
  // defaults (histogram/tuning.hpp).
  std::string variants = "auto";
  Settings settings;
  std::string kernel_file;
  std::string output;  // FILE.csv: the counts
  DeviceChoice device;
  int reps = 10;
  double timeout = -1;  // seconds; < 0: 60 with --kernel, else none
  bool verify = false, csv = false, breakdown = false, limits = false, no_cache = false;
};

// The names asked for, serial first when present, then auto, then in lesson
// order; throws UsageError for an unknown name.
std::vector<std::string> parse_variants(const std::string& text);

// Returns the exit status: 0, or 1 when --verify found a difference.
int run_histogram(const Options& options);

}  // namespace conv::histogram
