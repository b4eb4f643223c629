// The tuner (docs/step7-tuned.md): the search over a Tunable's space on
// this device, one problem at a time, for every tunable step and the
// histogram. Each candidate is checked against the serial reference before
// it is timed; the search starts at the documented defaults, then the
// nearest problem's stored winner, descends one parameter at a time from
// the best so far, then times the rest until the budget is spent. Before
// anything is stored, the best few and the defaults are timed again in
// turns, afresh each round, and a winner is stored only when it is faster
// than the defaults by more than the noise those rounds measured.
#pragma once
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "common/machinery/report.hpp"
#include "common/machinery/tuning.hpp"

namespace conv {

class Step;

// One candidate's measurement. `wrong` non-empty: it gave a wrong result
// (left out, and the tuner's exit status says so).
struct Measured {
  double ms = 0;        // median of the timed launches
  double build_ms = 0;  // building its program(s), this process's first time
  std::string wrong;
  Row row;              // for the CSV: the step's columns, filled by the caller
};

// What a search needs from its caller (the convolution steps' front end
// below, or the histogram's): how to measure a point, and how to time it
// again afresh (new buffers and launches, the program from the cache).
// `measure` throws DeviceLimit for a point the device refuses at run time
// (counted as skipped); `retime` returns one median.
struct DeviceLimit : std::runtime_error {
  using std::runtime_error::runtime_error;
};
struct SearchJob {
  const Tunable* tunable = nullptr;
  DeviceFacts facts;
  TuneProblem problem;
  std::vector<TunePoint> space;              // tune_space(): the defaults first
  std::optional<TunePoint> nearest;          // the nearest problem's winner
  double budget_s = 60;                      // of search; the re-timing comes after
  int retime_rounds = 5, finalists = 3;
  std::function<Measured(const TunePoint&)> measure;
  std::function<double(const TunePoint&)> retime;
  std::string label;  // "step7-tuned F=7", for progress and messages
};

struct SearchOutcome {
  TunePoint best, defaults;
  double best_ms = 0, default_ms = 0;  // the re-timed medians
  double noise = 0;                    // relative: half the spread of the defaults' rounds over their median
  bool beats_defaults = false;         // by more than the noise
  std::string verdict;                 // one line: what was found and what is stored
  double best_build_ms = 0, default_build_ms = 0;
  std::size_t timed = 0, skipped = 0, wrong = 0, space = 0;
  double seconds = 0;
  std::vector<Measured> all;  // every candidate timed, in order
};

// Runs the search and the re-timing; throws Error when no point ran.
SearchOutcome search(const SearchJob& job);

// What to store for an outcome: the winner when it beats the defaults,
// else the defaults themselves (tuned, and no faster found).
StoredWinner winner_to_store(const SearchOutcome& outcome);

// ---- the convolution steps' front end ------------------------------------------
// `STEP --tune [--filters LIST | --filter-widths LIST] [--image SPEC]
// [--budget S] [--reps N] [--small] [--no-store] [--output CSV]` for any
// step that is also a Tunable (steps 7, 8 and 10); --filters defaults to the
// step's tune_filters(). Returns the exit status.
int tune_step_main(int argc, char** argv, Step& step);

// The search for one filter, as tools/tune and tune_step_main run it;
// stores the winner unless `store` is false. Prints the verdict on stderr.
struct TuneSettings {
  std::string image_spec = "synthetic:2048x2048";
  double budget_s = 60;
  int reps = 5;
  bool small = false, store = true;
};
SearchOutcome tune_filter(Step& step, DeviceContext& device, const std::string& filter_spec,
                          const TuneSettings& settings);

}  // namespace conv
