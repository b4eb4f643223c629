#include "coursework/case_run.hpp"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <regex>
#include <sstream>

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
  }
  return "?";
}

namespace {

std::string decode(const std::string& text) {
  static const std::pair<const char*, char> kEntities[] = {
      {"&lt;", '<'}, {"&gt;", '>'}, {"&amp;", '&'}, {"&quot;", '"'}, {"&apos;", '\''}};
  std::string out;
  for (std::size_t i = 0; i < text.size();) {
    bool matched = false;
    if (text[i] == '&') {
      for (const auto& [entity, c] : kEntities)
        if (text.compare(i, std::strlen(entity), entity) == 0) {
          out += c;
          i += std::strlen(entity);
          matched = true;
          break;
        }
      if (!matched && text.compare(i, 3, "&#x") == 0) {
        const std::size_t end = text.find(';', i);
        if (end != std::string::npos) {
          out += static_cast<char>(std::stoi(text.substr(i + 3, end - i - 3), nullptr, 16));
          i = end + 1;
          matched = true;
        }
      }
    }
    if (!matched) out += text[i++];
  }
  return out;
}

// Lines trimmed and joined by single spaces (Catch indents element text).
std::string flatten(const std::string& text) {
  std::istringstream in(text);
  std::string line, out;
  while (std::getline(in, line)) {
    const auto b = line.find_first_not_of(" \t\r"), e = line.find_last_not_of(" \t\r");
    if (b == std::string::npos) continue;
    out += (out.empty() ? "" : " ") + line.substr(b, e - b + 1);
  }
  return out;
}

// The text of <tag ...>text</tag> starting at `open` (the '<'); `end` is set
// past the closing tag.
std::string element_text(const std::string& xml, std::size_t open, const std::string& tag,
                         std::size_t& end) {
  const std::size_t start = xml.find('>', open);
  if (start == std::string::npos) return end = xml.size(), "";
  if (xml[start - 1] == '/') return end = start + 1, "";  // <tag .../>
  const std::string close = "</" + tag + ">";
  const std::size_t stop = xml.find(close, start);
  end = stop == std::string::npos ? xml.size() : stop + close.size();
  return xml.substr(start + 1, (stop == std::string::npos ? xml.size() : stop) - start - 1);
}

std::string attribute(const std::string& xml, std::size_t open, const std::string& name) {
  const std::size_t tag_end = xml.find('>', open);
  const std::size_t at = xml.find(" " + name + "=\"", open);
  if (at == std::string::npos || at > tag_end) return "";
  const std::size_t value = at + name.size() + 3;
  return xml.substr(value, xml.find('"', value) - value);
}

}  // namespace

CatchReport parse_catch_xml(const std::string& xml) {
  CatchReport r;
  std::vector<std::string> info;
  std::size_t pos = 0;
  while ((pos = xml.find('<', pos)) != std::string::npos) {
    std::size_t name_end = xml.find_first_of(" />", pos + 1);
    if (name_end == std::string::npos) break;
    const std::string tag = xml.substr(pos + 1, name_end - pos - 1);
    std::size_t end = name_end;
    if (tag == "Info") {
      info.push_back(flatten(decode(element_text(xml, pos, tag, end))));
    } else if (tag == "Expression") {
      const bool failed = attribute(xml, pos, "success") == "false";
      const std::string body = element_text(xml, pos, tag, end);
      if (failed && r.failure == CatchReport::Failure::none) {
        r.failure = CatchReport::Failure::check;
        r.info = info;
        std::size_t e2 = 0;
        const auto o = body.find("<Original>"), x = body.find("<Expanded>");
        if (o != std::string::npos) r.expression = flatten(decode(element_text(body, o, "Original", e2)));
        if (x != std::string::npos) r.expanded = flatten(decode(element_text(body, x, "Expanded", e2)));
      }
      info.clear();
    } else if (tag == "Exception" || tag == "Failure" || tag == "FatalErrorCondition") {
      // Failure: the suite's FAIL() with the harness's message (a result never
      // written or not finite, a guard band overwritten): read as an exception.
      const std::string body = decode(element_text(xml, pos, tag, end));
      if (r.failure == CatchReport::Failure::none) {
        r.failure = tag == "FatalErrorCondition" ? CatchReport::Failure::fatal : CatchReport::Failure::exception;
        r.info = info;
        // Keep the lines: a build log is several.
        std::istringstream in(body);
        std::string line;
        while (std::getline(in, line)) {
          const auto b = line.find_first_not_of(" \t\r"), e = line.find_last_not_of(" \t\r");
          if (b != std::string::npos) r.message += (r.message.empty() ? "" : "\n") + line.substr(b, e - b + 1);
        }
      }
      info.clear();
    } else if (tag == "OverallResult" && !r.finished) {
      r.finished = true;
      r.success = attribute(xml, pos, "success") == "true";
    }
    pos = std::max(end, name_end);
  }
  return r;
}

std::string first_build_errors(const std::string& message, const std::string& kernel_file,
                               int lines) {
  // PoCL compiles a copy in its cache (".../tempfile_AbC123.cl"), NVIDIA
  // calls the source "<kernel>", Oclgrind "input.cl": name the student's file.
  static const std::regex temp_name(R"((\S*/)?tempfile_\w+\.cl|<kernel>|\binput\.cl\b)");
  const std::string log = message.substr(message.find('\n') == std::string::npos
                                             ? message.size()
                                             : message.find('\n') + 1);
  std::vector<std::string> all, errors;
  std::istringstream in(log);
  std::string line;
  while (std::getline(in, line)) {
    if (line.find_first_not_of(" \t") == std::string::npos) continue;
    line = std::regex_replace(line, temp_name, kernel_file);
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

namespace {

// "step3-local: 17x33, ..., kernel file /x/y.cl; seed 7 (...)" -> "17x33, ...; seed 7 (...)"
std::string tidy_info(std::string text) {
  static const std::regex kernel_note(R"(, kernel file [^;]*)");
  static const std::regex step_prefix(R"(^step[0-9]+-[A-Za-z0-9_-]+:? )");
  text = std::regex_replace(text, kernel_note, "");
  return std::regex_replace(text, step_prefix, "");
}

std::string last_line(const std::string& text) {
  std::istringstream in(text);
  std::string line, last;
  while (std::getline(in, line))
    if (line.find_first_not_of(" \t\r") != std::string::npos) last = line;
  return last;
}

std::string seconds_text(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f s", s);
  return buf;
}

}  // namespace

CaseOutcome classify(const ChildResult& run, const std::string& case_title,
                     const std::string& kernel_file, double limit_s) {
  CaseOutcome c;
  c.seconds = run.seconds;
  const std::string in_case = "\"" + case_title + "\"";
  if (run.timed_out) {
    c.verdict = Verdict::timeout;
    c.reason = in_case + " did not finish within " + seconds_text(limit_s) + " (killed)";
    return c;
  }
  const CatchReport report = parse_catch_xml(run.out);
  const auto sanitizer = run.err.find("ERROR: AddressSanitizer");
  if (run.signal != 0 || report.failure == CatchReport::Failure::fatal ||
      sanitizer != std::string::npos) {
    c.verdict = Verdict::crash;
    // Catch names the signal it caught first (an ASan build then aborts).
    std::string what = report.failure == CatchReport::Failure::fatal ? report.message
                       : run.signal                                  ? signal_text(run.signal)
                                                                     : "";
    if (sanitizer != std::string::npos) {  // its first line, without the registers
      std::string line = run.err.substr(sanitizer + 7, run.err.find('\n', sanitizer) - sanitizer - 7);
      line = line.substr(0, line.find(" (pc "));
      what += (what.empty() ? "" : "; ") + line;
    }
    c.reason = what + " in " + in_case;
    return c;
  }
  if (run.status == 0 && report.finished && report.success) return c;

  std::string context;
  for (const auto& line : report.info) context += (context.empty() ? "" : "; ") + tidy_info(line);
  switch (report.failure) {
    case CatchReport::Failure::exception: {
      const std::string& m = report.message;
      if (m.find("failed to build") != std::string::npos) {
        c.verdict = Verdict::build_error;
        const std::size_t o = m.find("options: ");
        const std::string options =
            o == std::string::npos ? "" : m.substr(o + 9, m.find(')', o) - o - 9);
        c.reason = first_build_errors(m, kernel_file) +
                   (options.empty() ? "" : " (build options: " + options + ")");
      } else if (m.find("no kernel named") != std::string::npos) {
        c.verdict = Verdict::build_error;
        c.reason = m.substr(m.find("no kernel named")) + " in " + kernel_file +
                   ": keep the skeleton's kernel name, the launcher looks it up by name";
      } else {
        c.verdict = Verdict::wrong;  // a failed run: a limit, a guard band, ...
        c.reason = in_case + ": " + m.substr(0, m.find('\n')) +
                   (context.empty() ? "" : "; " + context);
      }
      return c;
    }
    case CatchReport::Failure::check:
      c.verdict = Verdict::wrong;
      c.reason = in_case + ": " + context;
      if (!report.expanded.empty() && report.expanded != "false")
        c.reason += (context.empty() ? "" : "; ") + std::string("failed: ") + report.expression +
                    " (" + report.expanded + ")";
      return c;
    default:
      c.verdict = Verdict::crash;
      c.reason = "exited with status " + std::to_string(run.status) + " and no result in " + in_case;
      if (const std::string last = last_line(run.err); !last.empty()) c.reason += ": " + last;
      return c;
  }
}

}  // namespace conv::grade
