// The histogram's result rows, as CSV (one header row) or as tables. The
// columns it shares with the steps' CSV keep their names; `phase`, `image`,
// `chunk`, `first_ms`, `copy_gbps` and `pct_copy` are its own.
#pragma once
#include <cmath>
#include <iosfwd>
#include <string>
#include <vector>

#include "common/core/timing.hpp"
#include "common/machinery/device_choice.hpp"
#include "common/machinery/program_cache.hpp"

namespace conv::histogram {

struct Row {
  std::string device, driver, date;
  std::string step = "histogram";
  std::string variant;  // serial, global-partials, ...
  std::string phase;    // kernels, read back, host merge, histogram; or a --breakdown phase
  std::string image;    // the --image spec
  int width = 0, height = 0;
  unsigned chunk = 0, wg = 0;  // 0: not applicable (serial)
  int reps = 0;
  double first_ms = NAN;  // --breakdown: the first round
  double median_ms = NAN, min_ms = NAN, mean_ms = NAN;
  double gbps = NAN;       // image bytes (3 per pixel) / median time
  double copy_gbps = NAN;  // the device's measured copy bandwidth (--limits)
  double pct_copy = NAN;   // gbps as a share of copy_gbps
  double speedup_serial = NAN;
};

// Fills device, driver, date and the timing columns; GB/s from the pixels.
Row make_row(const DeviceFacts& facts, const std::string& variant, const std::string& phase,
             const std::string& image, int width, int height, const Stats& stats);

const std::vector<std::string>& csv_columns();
void write_csv(std::ostream& out, const std::vector<Row>& rows);  // header + rows

// For people: one line per variant and image (kernel, read-back, merge,
// total, GB/s, share of the copy bandwidth, speedup over serial).
void write_run_table(std::ostream& out, const std::vector<Row>& rows);
// For people: one block per variant, one line per phase.
void write_breakdown_table(std::ostream& out, const std::vector<Row>& rows);

}  // namespace conv::histogram
