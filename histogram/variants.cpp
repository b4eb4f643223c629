#include "histogram/variants.hpp"

#include <algorithm>

#include "common/core/errors.hpp"
#include "histogram/counts.hpp"

namespace conv::embedded {
extern const char* const histogram_global_partials;
extern const char* const histogram_private;
extern const char* const histogram_device_merge;
extern const char* const histogram_local_atomic;
extern const char* const histogram_local_words;
extern const char* const histogram_one_launch;
extern const char* const histogram_loads_ahead;
extern const char* const histogram_lane_copies;
}  // namespace conv::embedded

namespace conv::histogram {
namespace {

constexpr unsigned kMaxSlices = 256;  // rows after the first device merge pass
// A CPU driver (PoCL) keeps a whole work-group's private arrays on one
// worker thread's stack, typically 8 MiB: stay well inside half of it.
constexpr std::size_t kCpuPrivateBytesPerGroup = std::size_t{4} << 20;

std::string mib(std::size_t bytes) {
  return std::to_string((bytes + (1 << 20) - 1) >> 20) + " MiB";
}

std::size_t round_up(std::size_t value, std::size_t multiple) {
  return (value + multiple - 1) / multiple * multiple;
}

}  // namespace

const std::vector<Variant>& device_variants() {
  // Defaults: the source's 1024 pixels per work-item for the variants that
  // reproduce it; 128 per work-item and 256 per group for the local ones, so
  // that the default image makes about 1000 work-groups: several per compute
  // unit of a large GPU, in about one wave. one-launch: 256 and 256, about
  // 500 groups of 48 KiB of local memory each, what an H200 holds at once
  // (bench/histogram.sh's sweep measured the alternatives).
  static const std::vector<Variant> variants = {
      {"global-partials", "global_partials.cl",
       "one partial histogram per work-item in global memory, merged on the host",
       embedded::histogram_global_partials, Merge::host, false, 1024, 64},
      {"private", "private.cl",
       "partial counts in private memory (zeroed first), copied out, merged on the host",
       embedded::histogram_private, Merge::host, true, 1024, 64},
      {"device-merge", "device_merge.cl",
       "private partials merged on the device by a second kernel, launched twice",
       embedded::histogram_device_merge, Merge::device, true, 1024, 64},
      {"local-atomic", "local_atomic.cl",
       "one histogram per work-group in local memory (atomics), merged with global atomics",
       embedded::histogram_local_atomic, Merge::atomic, false, 128, 256},
      {"local-words", "local_words.cl", "local-atomic reading four pixels as three 32-bit words",
       embedded::histogram_local_words, Merge::atomic, false, 128, 256},
      {"one-launch", "one_launch.cl",
       "one kernel, no fill: 16-byte reads, per-lane local copies, last group merges",
       embedded::histogram_one_launch, Merge::last_group, false, 256, 256},
      {"loads-ahead", "loads_ahead.cl",
       "one-launch with four 16-byte loads per work-item in flight while it counts",
       embedded::histogram_loads_ahead, Merge::last_group, false, 256, 256},
      // 16 copies of 3 KiB spread a warp's 32 increments over the 32 banks
      // two to a bank; 32 copies of 16-bit counters (1.5 KiB each), one per
      // lane, never share one. Either way, the 48 KiB of an NVIDIA GPU.
      {"lane-copies", "lane_copies.cl",
       "one-launch with 16-bit counters, a local copy per warp lane, two loads in flight",
       embedded::histogram_lane_copies, Merge::last_group, false, 256, 256, 32, 16},
  };
  return variants;
}

std::string variant_list() {
  std::string list = "serial";
  for (const auto& v : device_variants()) list += ", " + v.name;
  return list;
}

const Variant& find_variant(const std::string& name) {
  for (const auto& v : device_variants())
    if (v.name == name) return v;
  throw UsageError("--variant: unknown variant '" + name + "' (choose from " + variant_list() +
                   ", all or auto)");
}

std::size_t Plan::partial_bytes() const {
  return variant && (variant->merge == Merge::host || variant->merge == Merge::device)
             ? items * kCounts * sizeof(std::uint32_t)
             : 0;
}

Plan make_plan(const Variant& variant, std::size_t pixels, const Settings& settings,
               const DeviceFacts& facts) {
  Plan plan;
  plan.variant = &variant;
  plan.pixels = pixels;
  plan.chunk = settings.chunk ? settings.chunk : variant.default_chunk;
  plan.wg = settings.wg ? settings.wg : variant.default_wg;
  plan.source = settings.kernel_source.empty() ? variant.source : settings.kernel_source;
  plan.label = settings.kernel_label.empty() ? variant.file : settings.kernel_label;
  plan.spin = settings.wait == Wait::spin;
  plan.map = settings.read == ReadBack::map && variant.merge != Merge::host;

  const std::size_t max_wg = std::min<std::size_t>(
      facts.max_work_group,
      facts.max_work_item_sizes.empty() ? facts.max_work_group : facts.max_work_item_sizes[0]);
  if (plan.wg > max_wg)
    throw Error("--wg " + std::to_string(plan.wg) + " is over the device's work-group limit " +
                std::to_string(max_wg));
  const std::size_t private_bytes = std::size_t{plan.wg} * kCounts * sizeof(std::uint32_t);
  if (variant.private_counts && !facts.is_gpu && private_bytes > kCpuPrivateBytesPerGroup)
    throw Error("--wg " + std::to_string(plan.wg) + ": on a CPU device a work-group's private " +
                "counters (3 KiB per work-item) share one thread's stack; use --wg " +
                std::to_string(kCpuPrivateBytesPerGroup / (kCounts * sizeof(std::uint32_t))) +
                " or less");
  const std::size_t image_bytes = pixels * kChannels;
  if (image_bytes > facts.max_alloc_bytes)
    throw Error("the image needs " + mib(image_bytes) + ", over the device's allocation limit of " +
                mib(facts.max_alloc_bytes));

  if (variant.merge == Merge::atomic || variant.merge == Merge::last_group) {
    const std::size_t per_group = std::size_t{plan.chunk} * plan.wg;
    plan.groups = (pixels + per_group - 1) / per_group;
    plan.global = cl::NDRange(plan.groups * plan.wg);
    plan.local = cl::NDRange(plan.wg);
    const std::size_t one = std::size_t{kCounts} * variant.counter_bits / 8;  // a local histogram
    if (variant.merge == Merge::last_group) {
      // As many copies as local memory holds, up to the variant's most.
      while (plan.copies < variant.max_copies && 2 * plan.copies * one <= facts.local_mem_bytes)
        plan.copies *= 2;
      plan.options = "-DCOPIES=" + std::to_string(plan.copies);
      if (variant.counter_bits < 32) {
        // The most one counter can receive: every byte of one channel read
        // by the work-items that share its copy (those of one lane
        // position); each reads at most ceil(vectors / wg) 16-byte vectors,
        // 6 bytes of a channel in each, and at most 2 of the edge bytes.
        const std::size_t vectors = std::size_t{plan.chunk} * plan.wg * kChannels / 16 + 1;
        const std::size_t sharing = (plan.wg + plan.copies - 1) / plan.copies;
        const std::size_t most = sharing * (6 * ((vectors + plan.wg - 1) / plan.wg) + 2);
        const std::size_t limit = (std::size_t{1} << variant.counter_bits) - 1;
        if (most > limit)
          throw Error("--chunk " + std::to_string(plan.chunk) + " --wg " + std::to_string(plan.wg) +
                      ": a " + std::to_string(variant.counter_bits) + "-bit local counter of " +
                      variant.name + " could reach " + std::to_string(most) + " (over " +
                      std::to_string(limit) + ") with " + std::to_string(plan.copies) +
                      " copies; use a smaller --chunk or --wg");
      }
    }
    const std::size_t local_bytes = plan.copies * one;
    if (local_bytes > facts.local_mem_bytes)
      throw Error("a local histogram needs " + std::to_string(local_bytes / 1024) +
                  " KiB of local memory, over the device's " +
                  std::to_string(facts.local_mem_bytes) + " bytes; use a non-local --variant");
    return plan;
  }
  plan.items = (pixels + plan.chunk - 1) / plan.chunk;
  plan.global = cl::NDRange(round_up(plan.items, plan.wg));
  plan.local = cl::NDRange(plan.wg);
  if (plan.partial_bytes() > facts.max_alloc_bytes)
    throw Error(std::to_string(plan.items) + " partial histograms need " +
                mib(plan.partial_bytes()) + ", over the device's allocation limit of " +
                mib(facts.max_alloc_bytes) + "; use a larger --chunk");
  if (variant.merge == Merge::device) plan.slices = std::min<std::size_t>(plan.items, kMaxSlices);
  return plan;
}

}  // namespace conv::histogram
