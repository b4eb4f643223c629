// What a convolution step is, to the harness: a name, options, a kernel
// source, and a launcher (prepare) that turns a problem into a Launch
// (common/core/launch.hpp). A launcher includes only this header; the
// harness runs it (common/core/run_step.hpp).
#pragma once
#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "common/core/device.hpp"
#include "common/core/device_checks.hpp"
#include "common/core/launch.hpp"

namespace conv {

struct Comparison;  // common/machinery/reference.hpp
struct Reference;

// One named option of a step: its kernel variant ("variant", offered as
// --variant) or one of its own settings (step 5's --aligned, step 6's
// --block). The executable offers each as --NAME; sweep takes lists of
// them; the conformance suite runs every choice (suite_configurations).
// Free text's check: "" when the step can take `value`, else what it takes
// ("one of auto, tile, direct"); run on every value given, so a misspelling
// is never ignored.
using OptionCheck = std::function<std::string(const std::string& value)>;

struct StepOption {
  std::string name, help, default_value;
  std::vector<std::string> choices;      // empty: free text, checked by `check`
  std::vector<std::string> test_values;  // free text: what the suite also runs
  OptionCheck check = nullptr;           // free text: null takes any text
  // The variants that use the option; empty: every variant (step 8's
  // --columns: its passes and auto, not fused).
  std::vector<std::string> used_by = {};

  bool used_by_variant(const std::string& variant) const;
};

// Free text that must be one of `words` (listed so the suites do not run
// each one, as choices would be; auto_or_block: machinery/settings.hpp).
OptionCheck one_of(std::vector<std::string> words);

struct RunOptions {
  std::map<std::string, std::string> values;  // by option name; absent: the default
  int wg_x = 16, wg_y = 16;    // work-group shape
  std::string kernel_source;   // empty: the step's embedded kernel
  std::string kernel_label;    // names the source in build errors
};

class Step {
 public:
  virtual ~Step() = default;
  virtual std::string name() const = 0;     // "step1-naive": folder and executable
  virtual std::string summary() const = 0;  // one line for --help and the tour
  // The step's options, the kernel variant first when it has several.
  virtual std::vector<StepOption> options() const { return {}; }
  virtual std::string embedded_source() const = 0;
  // The previous step's variant this step builds on, so that "x prev"
  // credits one idea; "" means the previous step's first variant.
  virtual std::string builds_on() const { return ""; }
  // The launcher: buffers, program, kernel, ranges, and how to run and read.
  virtual Launch prepare(DeviceContext& device, const Problem& problem,
                         const RunOptions& options) = 0;
  // The work-group shape `--wg auto` (the default) gives this step, for
  // this filter and the step's own options.
  virtual std::pair<int, int> default_work_group(const DeviceFacts&, const Filter& /*filter*/,
                                                 const RunOptions& /*options*/) const {
    return {16, 16};
  }
  // Checks `output` against the exact answer within this step's error bound:
  // the direct sum's (machinery/reference.cpp) unless it computes another.
  virtual Comparison compare(const Image& output, const Problem& problem,
                             const Reference& reference) const;
  // Whether these options build a --kernel file (RunOptions::kernel_source)
  // in place of the embedded kernel: false where they build another kernel
  // of the step's own (step 7's --tile off builds convolve_direct).
  virtual bool builds_kernel_file(const RunOptions&) const { return true; }
  // True when every output is one plain sum of input x weight products, so
  // an impulse reproduces the filter bit for bit.
  virtual bool exact_sums() const { return true; }

  // The source to build: --kernel's file if given, else the embedded one.
  std::string source(const RunOptions& options) const;
  std::string label(const RunOptions& options) const;
  // The kernel variants: the "variant" option's choices, or {"default"}.
  std::vector<std::string> variants() const;
  // The variant asked for, or the first one.
  std::string variant(const RunOptions& options) const;
  // An option's value (checked against its choices or its check), or its default.
  std::string option(const RunOptions& options, const std::string& name) const;
  // "float4" or "float4 aligned=off": the variant plus every other option
  // not at its default, for reports. UsageError for an unknown option.
  std::string describe(const RunOptions& options) const;
  // Whether `variant` of this step uses the option `name` (false: no such option).
  bool uses(const std::string& name, const std::string& variant) const;
  // Throws UsageError for options this step cannot take (an unknown variant
  // or setting, a setting the chosen variant ignores, a work-group shape it
  // cannot use), before any work is done. An override calls this first.
  virtual void check_options(const RunOptions& options) const;
};

}  // namespace conv
