// The histogram's search space, declared once for the harness's tuner
// (common/machinery/tuning.hpp, tuner.hpp): which fast variant, how many
// pixels per work-item, how many work-items per group. The same store and
// search serve steps 7, 8 and 10; the histogram's problem is the image's
// pixel count ("pixels=33647712"). `histogram --tune` searches it
// (tune_main); `--variant auto` runs what resolve_auto picks: the stored
// winner for this image size, else the documented defaults
// (docs/histogram.md, "Tuned as in step 7").
#pragma once
#include <string>
#include <vector>

#include "common/machinery/tuner.hpp"
#include "common/machinery/tuning.hpp"
#include "histogram/variants.hpp"

namespace conv::histogram {

// The variants the tuner searches, in lesson order: device-merge (the
// fastest on a CPU, docs/results/histogram-pocl.csv) and the five that
// count in local memory.
const std::vector<std::string>& tuned_variants();

class HistogramTunable : public Tunable {
 public:
  // `image_spec` and its pixel count: the image that tune_command names
  // for that pixel count (other counts get a synthetic image of as many).
  HistogramTunable() = default;
  HistogramTunable(std::string image_spec, std::size_t pixels);

  std::string tune_name() const override { return "histogram"; }
  // variant, then chunk (pixels per work-item); "wg" is one-dimensional.
  std::vector<TuneParameter> tune_parameters() const override;
  // 32 to 1024 work-items, powers of two, up to the device's limit.
  std::vector<std::string> tune_work_groups(const DeviceFacts& facts, const TuneProblem& problem) const override;
  // A GPU: loads-ahead, 256 pixels per work-item, 256 per group. A CPU:
  // device-merge, 1024 and 64. The work-group at most the device's limit.
  TunePoint tune_defaults(const DeviceFacts& facts, const TuneProblem& problem) const override;
  // make_plan's refusal (work-group, private or local memory, allocation,
  // lane-copies' 16-bit counters), or device-merge with fewer than 1024
  // pixels per work-item (its partials would outweigh the image).
  std::string tune_ruled_out(const DeviceFacts& facts, const TuneProblem& problem,
                             const TunePoint& point) const override;
  // "build/bin/histogram --tune --image SPEC".
  std::string tune_command(const TuneProblem& problem) const override;
  // The tuned variants' kernels.
  std::string tune_kernels() const override;

 private:
  std::string image_spec_;
  std::size_t pixels_ = 0;
};

// {"pixels", pixels, ""}: the problem a winner is stored for.
TuneProblem tune_problem_of(std::size_t pixels);

// A point as a launch: its variant and its chunk and work-group put into
// `base` (whose wait, read-back and kernel are kept).
struct Chosen {
  const Variant* variant = nullptr;
  Settings settings;
};
Chosen chosen(const TunePoint& point, Settings base = {});

// What --variant auto runs on this image on this device: `chunk` and `wg`
// given (0: not given) win, the rest is the stored winner for the image's
// pixel count, else the documented defaults. Throws UsageError when the
// values given cannot run here.
struct AutoChoice {
  Chosen chosen;
  std::string point;   // "variant=device-merge chunk=1024 wg=64"
  std::string origin;  // Resolved::origin: where it came from, how to tune
};
AutoChoice resolve_auto(const DeviceFacts& facts, const std::string& image_spec, std::size_t pixels,
                        const Settings& given);

// The search for one image, as tools/tune and `histogram --tune` run it:
// every candidate's counts checked against the serial count (on a small
// odd-sized random image and on the image itself) before the median of
// its whole call (enqueue to counts on the host) is timed over
// settings.reps; the best few then re-timed in turns against the defaults.
// Stores the winner for this device, driver and pixel count unless
// settings.store is false; prints the verdict on stderr. `image_spec`
// empty: settings.image_spec.
SearchOutcome tune(DeviceContext& device, const std::string& image_spec, const TuneSettings& settings);

// `histogram --tune [--image SPEC] [--budget S] [--reps N] [--small]
// [--no-store] [--output CSV]` and the device options; the exit status.
int tune_main(int argc, char** argv);

// The plain run's default image, which --tune times by default too.
extern const char* const kDefaultImage;

}  // namespace conv::histogram
