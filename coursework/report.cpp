#include "coursework/report.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <functional>
#include <map>
#include <sstream>

#include "common/core/errors.hpp"
#include "common/machinery/image_files.hpp"  // output_target()

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

// A time in ms, a ratio; "" when not measured (negative).
std::string ms(double v) {
  if (v < 0) return "";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4g", v);
  return buf;
}
std::string ratio(double v) {
  if (v < 0) return "";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", v);
  return buf;
}
std::string fraction(double v) {
  if (v < 0) return "";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f", v);
  return buf;
}

}  // namespace

std::string grades_csv(const std::string& step_name, const std::vector<Grade>& grades, bool sandboxed) {
  std::ostringstream out;
  out << "student,step,verdict,cases_passed,cases_total,reason,seconds,sandbox,kernel_ms,reference_ms,speed_ratio,"
         "speed_noise\n";
  for (const auto& g : grades)
    out << csv_field(g.student) << ',' << csv_field(step_name) << ',' << verdict_name(g.verdict)
        << ',' << g.cases_passed << ',' << g.cases_total << ',' << csv_field(g.reason) << ','
        << seconds(g.seconds) << ',' << (sandboxed ? "bwrap" : "none") << ',' << ms(g.kernel_ms) << ','
        << ms(g.reference_ms) << ',' << ratio(g.speed_ratio) << ',' << fraction(g.speed_noise) << '\n';
  return out.str();
}

void print_markdown(std::ostream& out, const std::string& title, const std::string& step_name,
                    const std::vector<Grade>& grades, bool speed) {
  out << one_line(title) << "\n\n"
      << "| student | step | verdict | cases | seconds | " << (speed ? "kernel ms | x reference | " : "")
      << "reason |\n"
      << "| --- | --- | --- | --- | ---: | " << (speed ? "---: | ---: | " : "") << "--- |\n";
  std::map<std::string, int> counts;
  for (const auto& g : grades) {
    ++counts[verdict_name(g.verdict)];
    out << "| " << md_cell(g.student) << " | " << md_cell(step_name) << " | " << verdict_name(g.verdict)
        << " | " << g.cases_passed << "/" << g.cases_total << " | " << seconds(g.seconds) << " | ";
    if (speed) out << ms(g.kernel_ms) << " | " << ratio(g.speed_ratio) << " | ";
    out << md_cell(g.reason) << " |\n";
  }
  out << "\n" << grades.size() << " submission(s):";
  bool first = true;
  for (const auto& [verdict, n] : counts) out << (first ? " " : ", ") << n << " " << verdict, first = false;
  out << "\n";
}

void print_ranking(std::ostream& out, const std::string& reference_name, const std::vector<Grade>& grades) {
  std::vector<const Grade*> timed;
  for (const auto& g : grades)
    if (g.kernel_ms >= 0) timed.push_back(&g);
  std::stable_sort(timed.begin(), timed.end(),
                   [](const Grade* a, const Grade* b) { return a->kernel_ms < b->kernel_ms; });
  out << "\nRanking by kernel time on the speed case, fastest first (x " << one_line(reference_name)
      << "'s kernel, timed beside each):\n\n"
      << "| rank | student | verdict | kernel ms | x reference |\n"
      << "| ---: | --- | --- | ---: | ---: |\n";
  int rank = 0;
  for (const Grade* g : timed)
    out << "| " << ++rank << " | " << md_cell(g->student) << " | " << verdict_name(g->verdict) << " | "
        << ms(g->kernel_ms) << " | " << ratio(g->speed_ratio) << " |\n";
  const std::size_t untimed = grades.size() - timed.size();
  out << "\n" << timed.size() << " timed";
  if (untimed > 0) out << "; " << untimed << " not timed (only a submission that passes every case is)";
  out << "\n";
}

std::string progress_line(const Grade& g, int done, int total) {
  return "[" + std::to_string(done) + "/" + std::to_string(total) + "] " + one_line(g.student) + ": " +
         verdict_name(g.verdict) + ", " + std::to_string(g.cases_passed) + "/" +
         std::to_string(g.cases_total) + " cases, " + seconds(g.seconds) + " s";
}

std::string report_lock_path(const std::string& report) {
  namespace fs = std::filesystem;
  const fs::path target = fs::absolute(output_target(fs::absolute(report).string()));
  const std::string name = target.filename().string();
  if (name.size() + 5 <= 255) return target.string() + ".lock";
  return (target.parent_path() / (".grade-lock-" + std::to_string(std::hash<std::string>{}(name)))).string();
}

ReportLock::ReportLock(const std::string& report) : path_(report_lock_path(report)) {
  // A lock file removed by its holder between this open and the flock would
  // leave this process locking a file no other grader sees: the lock counts
  // only when the file locked is still the one at the path.
  for (int attempt = 0; attempt < 100; ++attempt) {
    const int fd = open(path_.c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd < 0)
      throw Error("--report: cannot make the lock file " + path_ + ": " + std::strerror(errno));
    if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
      const int error = errno;
      char buf[32] = {};
      const ssize_t n = pread(fd, buf, sizeof buf - 1, 0);
      close(fd);
      if (error != EWOULDBLOCK)
        throw Error("--report: cannot lock " + path_ + ": " + std::strerror(error));
      std::string pid = n > 0 ? std::string(buf, static_cast<std::size_t>(n)) : "";
      while (!pid.empty() && (pid.back() == '\n' || pid.back() == ' ')) pid.pop_back();
      if (pid.empty() || pid.find_first_not_of("0123456789") != std::string::npos) pid = "unknown";
      throw Error("--report: another grade (pid " + pid + ") is writing " + report +
                  "; wait for it to finish, or name another report (its lock: " + path_ + ")");
    }
    struct stat held {}, there {};
    if (fstat(fd, &held) == 0 && lstat(path_.c_str(), &there) == 0 && held.st_dev == there.st_dev &&
        held.st_ino == there.st_ino) {
      const std::string pid = std::to_string(getpid()) + "\n";
      if (ftruncate(fd, 0) != 0 || pwrite(fd, pid.data(), pid.size(), 0) != static_cast<ssize_t>(pid.size())) {
        const int error = errno;
        unlink(path_.c_str());  // ours, and still held: no lock file left behind (a full disk)
        close(fd);
        throw Error("--report: cannot write the lock file " + path_ + ": " + std::strerror(error));
      }
      fd_ = fd;
      return;
    }
    close(fd);  // removed or replaced meanwhile: try the file that is there now
  }
  throw Error("--report: the lock file " + path_ + " keeps changing; is another grade starting and ending?");
}

ReportLock::~ReportLock() {
  if (fd_ < 0) return;
  unlink(path_.c_str());  // while still held: no other grader can hold the old file
  close(fd_);
}

}  // namespace conv::grade
