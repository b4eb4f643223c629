#include "common/machinery/report.hpp"

#include "common/core/problem.hpp"
#include "common/core/launch.hpp"
#include "common/machinery/platform/files.hpp"

#include <ctime>
#include <iomanip>
#include <ostream>
#include <sstream>

namespace conv {

Row problem_row(const DeviceFacts& facts, const std::string& step, const std::string& variant,
                const Problem& problem) {
  Row row;
  stamp(row, facts);
  row.step = step;
  row.variant = variant;
  row.width = problem.out_width();
  row.height = problem.out_height();
  row.filter = problem.filter.name;
  row.filter_width = problem.filter.width;
  row.border = border_name(problem.border);
  return row;
}


std::string today_utc() {
  const std::tm tm = utc_time(std::time(nullptr));
  char buf[16];
  std::strftime(buf, sizeof buf, "%Y-%m-%d", &tm);
  return buf;
}

void stamp(Row& row, const DeviceFacts& facts) {
  row.device = facts.name;
  row.driver = facts.driver;
  row.date = today_utc();
}

void fill_metrics(Row& row, const Stats& stats, long long padded_pixels, int planes) {
  row.reps = stats.reps;
  row.median_ms = stats.median_ms;
  row.min_ms = stats.min_ms;
  row.mean_ms = stats.mean_ms;
  const double outputs = static_cast<double>(row.width) * row.height * planes;
  const double flops = 2.0 * row.filter_width * row.filter_width * outputs;
  const double bytes = 4.0 * (static_cast<double>(padded_pixels) + outputs);
  if (stats.median_ms > 0) {
    row.gflops = flops / (stats.median_ms * 1e6);
    row.gbps = bytes / (stats.median_ms * 1e6);
  }
}

const std::vector<std::string>& csv_columns() {
  static const std::vector<std::string> columns = {
      "device",      "driver",     "date",   "step",          "variant",      "width",
      "height",      "filter",     "filter_width", "border",  "wg",           "reps",
      "median_ms",   "min_ms",     "mean_ms", "gflops",       "gbps",         "pct_limit",
      "limit",       "speedup_serial", "speedup_prev", "max_abs_err", "max_rel_err"};
  return columns;
}

std::string csv_escape(const std::string& field) {
  if (field.find_first_of(",\"\n") == std::string::npos) return field;
  std::string out = "\"";
  for (char c : field) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

void write_csv_header(std::ostream& out) { write_csv_line(out, csv_columns()); }

std::string csv_number(double v, int precision) {
  if (std::isnan(v)) return "";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  std::ostringstream s;
  s << std::setprecision(precision) << v;
  return s.str();
}

std::string fixed_text(double v, int digits) {
  if (std::isnan(v)) return "-";
  if (std::isinf(v)) return "inf";
  std::ostringstream s;
  s << std::fixed << std::setprecision(digits) << v;
  return s.str();
}

void write_csv_line(std::ostream& out, const std::vector<std::string>& fields) {
  for (std::size_t i = 0; i < fields.size(); ++i) out << (i ? "," : "") << fields[i];
  out << '\n';
}

void write_aligned(std::ostream& out, const std::vector<std::vector<std::string>>& lines,
                   std::size_t text_columns) {
  if (lines.empty()) return;
  std::vector<std::size_t> widths(lines.front().size(), 0);
  for (const auto& l : lines)
    for (std::size_t i = 0; i < l.size(); ++i) widths[i] = std::max(widths[i], l[i].size());
  for (const auto& l : lines)
    for (std::size_t i = 0; i < l.size(); ++i)
      out << (i < text_columns ? std::left : std::right) << std::setw(static_cast<int>(widths[i]))
          << l[i] << (i + 1 < l.size() ? "  " : "\n");
}

namespace {
std::string num(double v, int precision = 6) { return csv_number(v, precision); }
std::string fixed(double v, int digits) { return fixed_text(v, digits); }
}  // namespace

void write_csv_row(std::ostream& out, const Row& r) {
  const std::vector<std::string> fields = {
      csv_escape(r.device), csv_escape(r.driver), r.date, r.step, r.variant,
      std::to_string(r.width), std::to_string(r.height), csv_escape(r.filter),
      std::to_string(r.filter_width), r.border, r.wg, std::to_string(r.reps), num(r.median_ms),
      num(r.min_ms), num(r.mean_ms), num(r.gflops), num(r.gbps), num(r.pct_limit, 4), r.limit,
      num(r.speedup_serial, 4), num(r.speedup_prev, 4), num(r.max_abs_err, 3),
      num(r.max_rel_err, 3)};
  write_csv_line(out, fields);
}

void write_table(std::ostream& out, const std::vector<Row>& rows, bool tour) {
  std::vector<std::string> head = {"step", "variant", "wg", "median ms", "min ms", "GFLOP/s", "GB/s"};
  if (tour) {
    head.insert(head.end(), {"x serial", "x prev", "% limit"});
  }
  head.push_back("max abs err");
  std::vector<std::vector<std::string>> lines = {head};
  for (const auto& r : rows) {
    std::vector<std::string> c = {r.step, r.variant, r.wg.empty() ? "-" : r.wg,
                                  fixed(r.median_ms, 3), fixed(r.min_ms, 3), fixed(r.gflops, 2),
                                  fixed(r.gbps, 2)};
    if (tour) {
      c.push_back(fixed(r.speedup_serial, 2));
      c.push_back(fixed(r.speedup_prev, 2));
      c.push_back(std::isnan(r.pct_limit) ? "-" : fixed(r.pct_limit, 1) + " (" + r.limit + ")");
    }
    c.push_back(std::isnan(r.max_abs_err) ? "-" : num(r.max_abs_err, 2));
    lines.push_back(c);
  }
  write_aligned(out, lines, 3);
}

}  // namespace conv
