#include "histogram/report.hpp"

#include <algorithm>
#include <iomanip>
#include <ostream>
#include <sstream>

#include "common/machinery/device_choice.hpp"
#include "common/machinery/program_cache.hpp"
#include "common/machinery/report.hpp"

namespace conv::histogram {
namespace {

std::string num(double v, int precision = 6) { return csv_number(v, precision); }
std::string fixed(double v, int digits) { return fixed_text(v, digits); }
std::string count(unsigned v) { return v ? std::to_string(v) : ""; }

const Row* find(const std::vector<Row>& rows, const Row& like, const std::string& phase) {
  for (const auto& r : rows)
    if (r.variant == like.variant && r.image == like.image && r.phase == phase) return &r;
  return nullptr;
}

}  // namespace

Row make_row(const DeviceFacts& facts, const std::string& variant, const std::string& phase,
             const std::string& image, int width, int height, const Stats& stats) {
  Row row;
  row.device = facts.name;
  row.driver = facts.driver;
  row.date = today_utc();
  row.variant = variant;
  row.phase = phase;
  row.image = image;
  row.width = width;
  row.height = height;
  row.reps = stats.reps;
  row.median_ms = stats.median_ms;
  row.min_ms = stats.min_ms;
  row.mean_ms = stats.mean_ms;
  if (stats.median_ms > 0)
    row.gbps = 3.0 * width * static_cast<double>(height) / (stats.median_ms * 1e6);
  return row;
}

const std::vector<std::string>& csv_columns() {
  static const std::vector<std::string> columns = {
      "device", "driver",  "date",  "step",      "variant",  "phase",         "image",
      "width",  "height",  "chunk", "wg",        "reps",     "first_ms",      "median_ms",
      "min_ms", "mean_ms", "gbps",  "copy_gbps", "pct_copy", "speedup_serial"};
  return columns;
}

void write_csv(std::ostream& out, const std::vector<Row>& rows) {
  write_csv_line(out, csv_columns());
  for (const auto& r : rows) {
    const std::vector<std::string> fields = {csv_escape(r.device),
                                             csv_escape(r.driver),
                                             r.date,
                                             r.step,
                                             r.variant,
                                             csv_escape(r.phase),
                                             csv_escape(r.image),
                                             std::to_string(r.width),
                                             std::to_string(r.height),
                                             count(r.chunk),
                                             count(r.wg),
                                             std::to_string(r.reps),
                                             num(r.first_ms),
                                             num(r.median_ms),
                                             num(r.min_ms),
                                             num(r.mean_ms),
                                             num(r.gbps),
                                             num(r.copy_gbps),
                                             num(r.pct_copy, 4),
                                             num(r.speedup_serial, 4)};
    write_csv_line(out, fields);
  }
}

void write_run_table(std::ostream& out, const std::vector<Row>& rows) {
  std::vector<std::vector<std::string>> lines = {{"image", "variant", "chunk", "wg", "kernels ms",
                                                  "read-back ms", "merge ms", "total ms", "GB/s",
                                                  "% copy", "x serial", "call ms", "call % copy"}};
  for (const auto& r : rows) {
    if (r.phase != "histogram") continue;
    const Row* device = find(rows, r, "kernels");
    const Row* read = find(rows, r, "read back");
    const Row* merge = find(rows, r, "host merge");
    const Row* call = find(rows, r, "call");
    lines.push_back({r.image, r.variant, r.chunk ? std::to_string(r.chunk) : "-",
                     r.wg ? std::to_string(r.wg) : "-", device ? fixed(device->median_ms, 3) : "-",
                     read ? fixed(read->median_ms, 3) : "-",
                     merge ? fixed(merge->median_ms, 3) : "-", fixed(r.median_ms, 3),
                     fixed(r.gbps, 2), fixed(r.pct_copy, 1), fixed(r.speedup_serial, 2),
                     call ? fixed(call->median_ms, 3) : "-", call ? fixed(call->pct_copy, 1) : "-"});
  }
  write_aligned(out, lines, 4);
}

void write_breakdown_table(std::ostream& out, const std::vector<Row>& rows) {
  std::vector<std::vector<std::string>> lines = {
      {"variant", "phase", "first ms", "median ms", "min ms"}};
  for (const auto& r : rows)
    lines.push_back(
        {r.variant, r.phase, fixed(r.first_ms, 3), fixed(r.median_ms, 3), fixed(r.min_ms, 3)});
  write_aligned(out, lines, 2);
}

}  // namespace conv::histogram
