#include "coursework/case_run.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <regex>
#include <sstream>

#include "common/core/errors.hpp"
#include "common/machinery/sanitizer.hpp"
#include "common/machinery/image_files.hpp"

namespace conv::grade {

std::string verdict_name(Verdict v) {
  switch (v) {
    case Verdict::pass: return "pass";
    case Verdict::wrong: return "wrong";
    case Verdict::structure: return "structure";
    case Verdict::build_error: return "build-error";
    case Verdict::crash: return "crash";
    case Verdict::timeout: return "timeout";
    case Verdict::missing: return "missing";
    case Verdict::unreadable: return "unreadable";
    case Verdict::forbidden: return "forbidden";
    case Verdict::not_graded: return "not-graded";
    case Verdict::slow: return "slow";
  }
  return "?";
}

std::string first_build_errors(const std::string& message, const std::string& kernel_file,
                               const std::vector<std::string>& own_files, int lines) {
  // PoCL compiles a copy in its cache (".../tempfile_AbC123.cl"), NVIDIA
  // calls the source "<kernel>", Oclgrind "input.cl": name the student's file.
  static const std::regex temp_name(R"((\S*/)?tempfile_\w+\.cl|<kernel>|\binput\.cl\b)");
  const std::string log = message.substr(message.find('\n') == std::string::npos
                                             ? message.size()
                                             : message.find('\n') + 1);
  // "name.h:12:3" or "/usr/.../opencl-c.h:12": a diagnostic in a file.
  static const std::regex in_file(R"(([^\s:'"]+\.[A-Za-z]+):[0-9]+)");
  std::vector<std::string> all, errors;
  std::istringstream in(log);
  std::string line;
  bool foreign = false;  // the last diagnostic was in a file not the student's
  while (std::getline(in, line)) {
    if (line.find_first_not_of(" \t") == std::string::npos) continue;
    line = std::regex_replace(line, temp_name, kernel_file);
    // Only the student's own files are quoted: a diagnostic in another
    // file (a driver's header), and the source lines under it, are left out.
    std::smatch m;
    if (std::regex_search(line, m, in_file))
      foreign = m[1].str() != kernel_file &&
                std::find(own_files.begin(), own_files.end(), m[1].str()) == own_files.end();
    if (foreign) continue;
    all.push_back(line);
    if (line.find("error") != std::string::npos && line.find("errors generated") == std::string::npos &&
        line.find("error generated") == std::string::npos)
      errors.push_back(line);
  }
  const auto& pick = errors.empty() ? all : errors;
  std::string out;
  for (int i = 0; i < lines && i < static_cast<int>(pick.size()); ++i)
    out += (i ? " | " : "") + pick[i];
  if (out.empty()) out = "the compiler gave no log";
  return out;
}

bool read_runner_file(const std::string& folder, const std::string& name, std::size_t limit,
                      std::string& bytes) {
  // The folder was the sandbox's to write in: a symbolic link there must
  // not make the grader read a file of its own choosing.
  const int dir = open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (dir < 0) return false;
  const int fd = openat(dir, name.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  close(dir);
  if (fd < 0) return false;
  struct stat st {};
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || static_cast<std::uint64_t>(st.st_size) > limit) {
    close(fd);
    return false;
  }
  bytes.assign(static_cast<std::size_t>(st.st_size), '\0');
  std::size_t got = 0;
  while (got < bytes.size()) {
    const ssize_t n = read(fd, bytes.data() + got, bytes.size() - got);
    if (n <= 0) break;
    got += static_cast<std::size_t>(n);
  }
  close(fd);
  bytes.resize(got);
  return true;
}

namespace {

std::string seconds_text(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f s", s);
  return buf;
}

std::string base_name(const std::string& path) { return path.substr(path.rfind('/') + 1); }

}  // namespace

CaseOutcome judge(const CaseContext& c, const ChildResult& run, const std::string& out_folder) {
  CaseOutcome o;
  o.seconds = run.seconds;
  const std::string in_case = "\"" + c.test->title + "\"";
  if (run.timed_out) {
    o.verdict = Verdict::timeout;
    o.reason = in_case + " did not finish within " + seconds_text(c.limit_s) + " (killed)";
    return o;
  }
  if (!run.over_cap.empty()) {
    o.verdict = Verdict::crash;
    o.reason = in_case + " " + run.over_cap + " (killed by the grader)";
    return o;
  }
  const std::string seed = "seed " + std::to_string(c.seed) + " (grade --seed " + std::to_string(c.seed) +
                           " replays these data)";
  // bubblewrap exits with 128 + N when its command dies of signal N.
  const int signal = run.signal ? run.signal
                     : c.sandboxed && run.status > 128 && run.status < 128 + 65 ? run.status - 128
                                                                                : 0;
  const auto sanitizer = run.err.find("ERROR: AddressSanitizer");
  std::string died;  // how the process ended, when not by exit status 0
  if (signal) died = signal_text(signal);
  else if (run.status != 0) died = "exit status " + std::to_string(run.status);
  if (sanitizer != std::string::npos) {  // its first line, without the registers
    std::string line = run.err.substr(sanitizer + 7, run.err.find('\n', sanitizer) - sanitizer - 7);
    died += (died.empty() ? "" : "; ") + line.substr(0, line.find(" (pc "));
  }
  const auto& runs = c.test->runs;
  for (std::size_t k = 0; k < runs.size(); ++k) {
    const std::string label = run_label(*c.step, runs[k]);
    const std::string where = in_case + ": " + label;
    std::string bytes;
    if (read_runner_file(out_folder, base_name(output_file(out_folder, k)), std::size_t{1} << 30, bytes)) {
      std::string problem;
      try {
        problem = check_output(*c.step, runs[k], decode_pfm(std::vector<std::uint8_t>(bytes.begin(), bytes.end()),
                                                            "the result"));
      } catch (const std::exception&) {
        problem = "the result is not an image of the right kind";
      }
      if (problem.empty()) continue;
      o.verdict = Verdict::wrong;
      o.reason = where + "; " + problem + "; " + seed;
      return o;
    }
    if (read_runner_file(out_folder, base_name(build_note_file(out_folder, k)), 1 << 20, bytes)) {
      o.verdict = Verdict::build_error;
      const std::size_t at = bytes.find("options: ");
      const std::string options = at == std::string::npos ? "" : bytes.substr(at + 9, bytes.find(')', at) - at - 9);
      o.reason = one_line(first_build_errors(bytes, c.kernel_file, c.own_files)) +
                 (options.empty() ? "" : " (build options: " + one_line(options) + ")");
      return o;
    }
    if (read_runner_file(out_folder, base_name(fault_note_file(out_folder, k)), 1 << 20, bytes)) {
      const std::string first = one_line(bytes.substr(0, std::min<std::size_t>(bytes.find('\n'), 600)));
      if (bytes.find("no kernel named") != std::string::npos) {
        o.verdict = Verdict::build_error;
        o.reason = one_line(bytes.substr(bytes.find("no kernel named"), 80)) + " in " + c.kernel_file +
                   ": keep the skeleton's kernel name, the launcher looks it up by name";
      } else {
        o.verdict = Verdict::wrong;  // a failed run: a pixel never written, a guard band, a limit
        o.reason = where + "; " + first + "; " + seed;
      }
      return o;
    }
    if (!died.empty()) {
      o.verdict = Verdict::crash;
      o.reason = died + " in " + where + "; " + seed;
    } else {
      o.verdict = Verdict::wrong;
      o.reason = where + ": the case ended (exit status 0) without a result for this run; " + seed;
    }
    return o;
  }
  // In the asan preset's build only: LeakSanitizer's exit-time tracer can
  // fail by itself after every result was written (its fatal error, no
  // finding; tests/reliability/tracer_crashes.py), which is not the kernel's
  // crash. Compiled out of every other build.
  const bool tracer_gave_up = kAddressSanitizer &&
                              run.err.find("LeakSanitizer has encountered a fatal error") != std::string::npos &&
                              sanitizer == std::string::npos &&
                              run.err.find("ERROR: LeakSanitizer") == std::string::npos;
  if (!died.empty() && !tracer_gave_up) {
    o.verdict = Verdict::crash;
    o.reason = died + " in " + in_case + ", after every result was written";
  }
  return o;
}

}  // namespace conv::grade
