// What a tunable step declares, once, and what the harness does with it
// (docs/step7-tuned.md teaches the method; docs/architecture.md places it).
//
// A step that leaves choices to the device (step 7's weights, tile, block
// and work-group; step 8's kernel and blocks; step 10's tile and layout;
// the histogram's chunk, work-group and variant) implements Tunable beside
// Step: its parameters and their values, the documented defaults per kind
// of device, and what rules a point out before anything is built. From
// that one declaration come the step's --NAME options (tuned_options), the
// search space (tune_space), what a plain run uses (resolve_point: the
// options given, then the stored winner, then the defaults), and the
// store of winners (one file for every step, keyed by step, device,
// driver and problem). The search itself is common/machinery/tuner.hpp.
#pragma once
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "common/core/device.hpp"
#include "common/core/problem.hpp"
#include "common/core/step.hpp"

namespace conv {

// One parameter of a search space. Its values are what the tuner tries, in
// order; `small` is the few `--tune --small` tries (empty: only the
// defaults' value). A user may give any value `values` holds, or, where
// `check` is set, any value it takes (step 7's blocks beyond the searched
// ones). `test_values` are what the conformance suites run beyond the
// defaults (StepOption::test_values); `used_by` as StepOption's.
struct TuneParameter {
  std::string name, help;
  std::vector<std::string> values;
  std::vector<std::string> small = {};
  OptionCheck check = nullptr;
  std::vector<std::string> test_values = {};
  std::vector<std::string> used_by = {};
};

// One point of a space: each parameter's value by name, and "wg" (the
// work-group, "32x4", or "256" for a one-dimensional one).
using TunePoint = std::map<std::string, std::string>;

// The problem a winner is for: the filter's width (with what else changes
// the kernels that run: "box", "rank=2"), or the image's pixels for the
// histogram. text() is "F=7", "F=15 box", "pixels=4194304".
struct TuneProblem {
  std::string kind = "F";
  long long size = 0;
  std::string detail;
  std::string text() const;
  bool operator<(const TuneProblem& o) const { return text() < o.text(); }
  bool operator==(const TuneProblem& o) const { return text() == o.text(); }
};
std::optional<TuneProblem> parse_tune_problem(const std::string& text);

class Tunable {
 public:
  virtual ~Tunable() = default;
  // The store's key and the executable that tunes it: "step7-tuned".
  virtual std::string tune_name() const = 0;
  // The parameters, "wg" apart, in the order the descent takes them.
  virtual std::vector<TuneParameter> tune_parameters() const = 0;
  // The work-groups searched on this device for this problem, "WxH" or "N".
  virtual std::vector<std::string> tune_work_groups(const DeviceFacts& facts, const TuneProblem& problem) const = 0;
  // The documented defaults: one simple rule per kind of device, every
  // parameter and "wg" set.
  virtual TunePoint tune_defaults(const DeviceFacts& facts, const TuneProblem& problem) const = 0;
  // Why `point` cannot run on this device for this problem (its local
  // memory over the device's, a work-group over its limit, a combination
  // the kernels lack), or "" when it can.
  virtual std::string tune_ruled_out(const DeviceFacts& facts, const TuneProblem& problem,
                                     const TunePoint& point) const = 0;
  // The problem a convolution step's filter is (steps 7, 8, 10): by default
  // its width; step 8 adds whether it is a box, or its rank.
  virtual TuneProblem tune_problem(const Filter& filter) const;
  // The filters --tune and tools/tune search when none are given: by
  // default "random:3,random:7,random:15,random:31".
  virtual std::string tune_filters() const;
  // The command that tunes `problem` (for messages): by default
  // "build/bin/NAME --tune --filters random:F".
  virtual std::string tune_command(const TuneProblem& problem) const;
  // Every kernel source the points can build, one after another. The store
  // keeps its fingerprint beside each winner: a winner timed on other
  // kernels (the sources changed since) is not used.
  virtual std::string tune_kernels() const = 0;
};

// The step's options from its parameters: each --NAME takes auto (the
// tuned winner, else the defaults) or one of the values (or what `check`
// takes); `auto_help` ends each help line.
std::vector<StepOption> tuned_options(const std::vector<TuneParameter>& parameters, const std::string& auto_help);

// "weights=inline tile=off block=4x4 wg=32x4": the parameters in declared
// order, then wg. parse_tune_point reads it back, std::nullopt for text that
// names another parameter, misses one, or has a value the parameter does
// not take (a damaged store line).
std::string point_text(const Tunable& tunable, const TunePoint& point);
std::optional<TunePoint> parse_tune_point(const Tunable& tunable, const std::string& text);

// Every point of the space on this device for this problem, less what
// tune_ruled_out names: the defaults first, then each single change from
// them, then the rest. `small` keeps each parameter's `small` values.
std::vector<TunePoint> tune_space(const Tunable& tunable, const DeviceFacts& facts, const TuneProblem& problem,
                                  bool small = false);

// The descent's moves from `centre` along one parameter (or "wg"): for each
// other value of it, the points of `space` with that value that differ
// from centre in the fewest other parameters (what a value forces along).
std::vector<TunePoint> descent_moves(const std::vector<TunePoint>& space, const TunePoint& centre,
                                     const std::string& parameter);

// ---- the store ----------------------------------------------------------------
// One file, tuned.txt in cache_dir("clconv"), one line per step, device,
// driver and problem: the winner, its time, the defaults' time and the
// fingerprint of the kernels it was timed on. A line for other kernels (or
// with none, from before fingerprints) is stale: kept, never used, and
// replaced when that problem is tuned again.
std::string tune_store_path();  // "" when there is no cache folder
struct StoredWinner {
  TunePoint point;
  double ms = 0, default_ms = 0;
};
// "kernels=" and 16 hex digits: FNV-1a of tune_kernels().
std::string kernels_fingerprint(const Tunable& tunable);
std::optional<StoredWinner> stored_winner(const Tunable& tunable, const DeviceFacts& facts,
                                          const TuneProblem& problem);
// Every problem's stored winner for this step, device and driver, in one read.
std::map<TuneProblem, StoredWinner> stored_winners(const Tunable& tunable, const DeviceFacts& facts);
// The problems whose only line for this step, device and driver is stale.
std::set<TuneProblem> stale_winners(const Tunable& tunable, const DeviceFacts& facts);
// Replaces the line for this step, device, driver and problem; false when
// nothing could be written (no cache folder, or an unusable one).
bool store_winner(const Tunable& tunable, const DeviceFacts& facts, const TuneProblem& problem,
                  const StoredWinner& winner);

// ---- what a run uses ----------------------------------------------------------
// The point a plain run uses and where it came from. Each value in `given`
// (the options not left at auto, and "wg" when given) wins; the others
// come from the stored winner for this problem, else from the defaults.
// When the values given cannot go with the others, the nearest point of
// the space that has them fills in (fewest other changes); when none has
// them, the values themselves are the problem, and `why` says so.
// `origin` is one line for the run's note: "tuned winner (tuned.txt)",
// "weights given, the rest the tuned winner", or "documented defaults for a
// CPU; tuned here: F=3, F=5; to tune F=7: build/bin/step7-tuned --tune
// --filter-widths 7".
struct Resolved {
  TunePoint point;
  std::string origin;
  std::string why;  // "" unless the values given cannot run (a limit of the device aside)
};
Resolved resolve_point(const Tunable& tunable, const DeviceFacts& facts, const TuneProblem& problem,
                       const TunePoint& given);

// The values of `options` not left at auto, for resolve_point; "wg" is added
// by the caller that knows whether the work-group was given.
TunePoint given_values(const Step& step, const Tunable& tunable, const RunOptions& options);

}  // namespace conv
