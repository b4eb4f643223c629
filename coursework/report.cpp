#include "coursework/report.hpp"

#include <cstdio>
#include <map>
#include <sstream>

#include "common/core/errors.hpp"

namespace conv::grade {

namespace {

// Every field the grader prints or writes, in any report, has its control
// characters escaped first (one_line(): \n, \t, \x1b, ...), so that a
// student's file name cannot drive a terminal or split a row.

// A field that a spreadsheet would read as a formula (=, +, -, @ first)
// gets a single quote in front, as OWASP's advice on CSV injection has it
// (a tab or carriage return first is escaped already); then the usual CSV
// quoting.
std::string csv_field(std::string text) {
  text = one_line(text);
  if (!text.empty() && std::string("=+-@").find(text[0]) != std::string::npos) text = "'" + text;
  if (text.find_first_of(",\"\n\r") == std::string::npos) return text;
  std::string q = "\"";
  for (char c : text) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

// One table cell: control characters escaped, and a | would end the cell.
std::string md_cell(const std::string& text) {
  std::string out;
  for (char c : one_line(text)) {
    if (c == '|') out += "\\|";
    else out += c;
  }
  return out;
}

std::string seconds(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", s);
  return buf;
}

}  // namespace

std::string grades_csv(const std::string& step_name, const std::vector<Grade>& grades, bool sandboxed) {
  std::ostringstream out;
  out << "student,step,verdict,cases_passed,cases_total,reason,seconds,sandbox\n";
  for (const auto& g : grades)
    out << csv_field(g.student) << ',' << csv_field(step_name) << ',' << verdict_name(g.verdict)
        << ',' << g.cases_passed << ',' << g.cases_total << ',' << csv_field(g.reason) << ','
        << seconds(g.seconds) << ',' << (sandboxed ? "bwrap" : "none") << '\n';
  return out.str();
}

void print_markdown(std::ostream& out, const std::string& title, const std::string& step_name,
                    const std::vector<Grade>& grades) {
  out << one_line(title) << "\n\n"
      << "| student | step | verdict | cases | seconds | reason |\n"
      << "| --- | --- | --- | --- | ---: | --- |\n";
  std::map<std::string, int> counts;
  for (const auto& g : grades) {
    ++counts[verdict_name(g.verdict)];
    out << "| " << md_cell(g.student) << " | " << md_cell(step_name) << " | " << verdict_name(g.verdict)
        << " | " << g.cases_passed << "/" << g.cases_total << " | " << seconds(g.seconds) << " | "
        << md_cell(g.reason) << " |\n";
  }
  out << "\n" << grades.size() << " submission(s):";
  bool first = true;
  for (const auto& [verdict, n] : counts) out << (first ? " " : ", ") << n << " " << verdict, first = false;
  out << "\n";
}

std::string progress_line(const Grade& g, int done, int total) {
  return "[" + std::to_string(done) + "/" + std::to_string(total) + "] " + one_line(g.student) + ": " +
         verdict_name(g.verdict) + ", " + std::to_string(g.cases_passed) + "/" +
         std::to_string(g.cases_total) + " cases, " + seconds(g.seconds) + " s";
}

}  // namespace conv::grade
