// One result row, printed as a table for people or as CSV for tools. Every
// executable (steps, tour, sweeps) writes the same columns in the same order.
#pragma once
#include <cmath>
#include <iosfwd>
#include <string>
#include <vector>

#include "common/core/device.hpp"
#include "common/core/timing.hpp"

namespace conv {

struct Problem;  // common/core/launch.hpp

struct Row {
  std::string device, driver, date;
  std::string step, variant;
  int width = 0, height = 0;
  std::string filter;
  int filter_width = 0;
  std::string border, wg;
  int reps = 0;
  double median_ms = NAN, min_ms = NAN, mean_ms = NAN;
  double gflops = NAN, gbps = NAN;
  double pct_limit = NAN;  // % of the roofline bound (see roofline.hpp)
  std::string limit;       // which limit bounds it: "copy" or "fma"
  double speedup_serial = NAN, speedup_prev = NAN;
  double max_abs_err = NAN, max_rel_err = NAN;
};

// A report row for one run on `problem`: device, driver and date stamped,
// step and variant, the output's size, the filter and the border. The
// caller fills in the timings.
Row problem_row(const DeviceFacts& facts, const std::string& step, const std::string& variant,
                const Problem& problem);

// Fills device, driver and date (UTC, YYYY-MM-DD).
void stamp(Row& row, const DeviceFacts& facts);

// Fills the timing columns and GFLOP/s (2*F*F per output pixel) and GB/s
// (one read of the padded input plus one write of the output); `planes`
// outputs per pixel for a bank of filters (step 6's --bank).
void fill_metrics(Row& row, const Stats& stats, long long padded_pixels, int planes = 1);

std::string today_utc();

const std::vector<std::string>& csv_columns();
void write_csv_header(std::ostream& out);
void write_csv_row(std::ostream& out, const Row& row);
std::string csv_escape(const std::string& field);

// An aligned table of the columns a person reads; `tour` adds the speedup
// and limit columns.
void write_table(std::ostream& out, const std::vector<Row>& rows, bool tour);

// The formatting every report shares (the steps' rows here, the
// histogram's in histogram/report.cpp):
// a number for a CSV field: "" for NaN, "inf", else `precision` digits;
std::string csv_number(double v, int precision = 6);
// a number for a table: "-" for NaN, "inf", else `digits` after the point;
std::string fixed_text(double v, int digits);
// one CSV line of fields, already escaped (csv_escape) where they need it;
void write_csv_line(std::ostream& out, const std::vector<std::string>& fields);
// a table for people: columns as wide as their widest cell, two spaces
// apart, the first `text_columns` left-aligned and the rest right-aligned.
void write_aligned(std::ostream& out, const std::vector<std::vector<std::string>>& lines,
                   std::size_t text_columns);

}  // namespace conv
