// The histogram variants in lesson order, and the plan of one launch: how
// many work-items and groups, which build options, what each buffer holds.
#pragma once
#include <cstddef>
#include <string>
#include <vector>

#include "common/machinery/device_choice.hpp"
#include "common/machinery/program_cache.hpp"

namespace conv::histogram {

// Where the partial histograms meet.
enum class Merge {
  host,    // partials read back and added on the host
  device,  // partials added by a second kernel
  atomic,  // one histogram per work-group, added with global atomics
  last_group,  // as atomic, into running sums the last group to finish moves out
};

struct Variant {
  std::string name;     // the --variant value
  std::string file;     // its kernel file in histogram/ (for --help and errors)
  std::string summary;  // one line for --help
  const char* source;   // the embedded kernel
  Merge merge;
  bool private_counts;  // keeps 768 counters per work-item in private memory
  unsigned default_chunk;
  unsigned default_wg;
  // Local histograms per group at most (last-group merge; a power of two),
  // and the bits of one local counter: 16 packs two bins into a word.
  unsigned max_copies = 16;
  unsigned counter_bits = 32;
};

// Every device variant, in lesson order (serial is not one of them).
const std::vector<Variant>& device_variants();
// "serial, global-partials, ...", for --help and errors.
std::string variant_list();
// Throws UsageError naming the choices.
const Variant& find_variant(const std::string& name);

// How the host waits for a call's counts: in the driver's wait, or asking
// the read's status over and over (a core busy meanwhile; on the H100 no
// faster, docs/results/histogram-lanes-h100.csv).
enum class Wait { block, spin };
// How the 768 counts come back: copied into page-locked host memory by a
// read, or the counts' own buffer allocated in host memory and mapped.
enum class ReadBack { copy, map };

// What the user may change about a launch; 0 means the variant's default.
struct Settings {
  unsigned chunk = 0;         // pixels per work-item
  unsigned wg = 0;            // work-items per work-group
  Wait wait = Wait::block;
  ReadBack read = ReadBack::copy;
  std::string kernel_source;  // --kernel FILE's text, else the embedded kernel
  std::string kernel_label;   // names the source in build errors
};

struct Plan {
  const Variant* variant = nullptr;
  std::size_t pixels = 0;
  unsigned chunk = 0, wg = 0;
  std::size_t items = 0;   // work-items that count (host/device merge)
  std::size_t groups = 0;  // work-groups (atomic and last-group merge)
  unsigned copies = 1;     // local histograms per group (last-group merge)
  bool spin = false;       // Wait::spin
  bool map = false;        // ReadBack::map (the 768 counts; partials are always read)
  std::size_t slices = 0;  // rows after the first merge pass (device merge)
  cl::NDRange global, local;
  std::string options;        // build options (-DCOPIES=N for one-launch)
  std::string source, label;  // what to build

  std::size_t partial_bytes() const;  // 0 for the atomic variants
};

// Checks the sizes against the device's limits; throws Error naming the
// limit and the option that changes it.
Plan make_plan(const Variant& variant, std::size_t pixels, const Settings& settings,
               const DeviceFacts& facts);

}  // namespace conv::histogram
