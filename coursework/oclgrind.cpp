#include "coursework/oclgrind.hpp"

#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <regex>
#include <sstream>

namespace conv::grade {

namespace {

std::string shell_quote(const std::string& s) {
  if (!s.empty() && s.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                                        "0123456789-_./=:+,") == std::string::npos)
    return s;
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

std::string in_path(const std::string& name) {
  const char* path = std::getenv("PATH");
  std::istringstream dirs(path ? path : "");
  std::string dir;
  while (std::getline(dirs, dir, ':')) {
    const std::string candidate = (dir.empty() ? "." : dir) + "/" + name;
    if (access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return "";
}

Env oclgrind_env(const Env& env) {
  Env out;
  for (const auto& kv : env)
    if (kv.first != "CLCONV_PLATFORM" && kv.first != "CLCONV_DEVICE" && kv.first != "CLCONV_DEVICE_TYPE")
      out.push_back(kv);
  out.insert(out.begin(), {"CLCONV_PLATFORM", "Oclgrind"});  // under Oclgrind, its only platform
  return out;
}

// The first MiB of a file: a log written by a process the grader does not
// trust is read only that far.
std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::string text(1u << 20, '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  text.resize(static_cast<std::size_t>(in.gcount()));
  return text;
}

}  // namespace

std::string find_oclgrind() {
  if (const char* o = std::getenv("OCLGRIND"); o && *o)
    return std::string(o).find('/') == std::string::npos ? in_path(o)
           : access(o, X_OK) == 0                        ? std::string(o)
                                                         : "";
  return in_path("oclgrind");
}

std::string catch_test_spec(const std::string& test) {
  std::string spec;
  for (char c : test) {
    if (c == ',' || c == '[' || c == ']' || c == '\\') spec += '\\';
    spec += c;
  }
  return spec;
}

std::string oclgrind_command(const CaseCommand& c) {
  std::string line;
  for (const auto& [name, value] : oclgrind_env(c.env)) line += name + "=" + shell_quote(value) + " ";
  return line + "oclgrind --data-races " + shell_quote(c.program) + " " +
         shell_quote(catch_test_spec(c.test));
}

std::string summarize_oclgrind_log(const std::string& log, const std::string& kernel_file) {
  std::istringstream in(log);
  std::string line, kind, where, code, entity;
  bool in_report = false;
  while (std::getline(in, line)) {
    const auto b = line.find_first_not_of(" \t");
    if (b == std::string::npos) {
      if (in_report) break;  // a report ends at its blank line
      continue;
    }
    line = line.substr(b);
    if (!in_report) {
      if (line.rfind("Oclgrind", 0) == 0) continue;  // its own notes, not a finding
      kind = std::regex_replace(line, std::regex(" address 0x[0-9a-fA-F]+"), "");
      in_report = true;
      continue;
    }
    std::smatch m;
    if (where.empty() && std::regex_search(line, m, std::regex(R"(^At line ([0-9]+)[^:]* of [^:]*:)"))) {
      where = "line " + m[1].str() + " of " + kernel_file;
      std::string next;
      if (std::getline(in, next) && next.find_first_not_of(" \t") != std::string::npos)
        code = next.substr(next.find_first_not_of(" \t"));
    } else if (entity.empty() && line.rfind("Entity:", 0) == 0) {
      const auto g = line.find("Global(");
      if (g != std::string::npos) entity = "work-item " + line.substr(g, line.find(')', g) - g + 1);
    }
  }
  if (kind.empty()) return "";
  std::string out = kind;
  if (!where.empty()) out += ", " + where + (code.empty() ? "" : ": " + code);
  if (!entity.empty()) out += " (" + entity + ")";
  return out;
}

std::string first_oclgrind_finding_in_sandbox(const std::string& oclgrind, const Sandbox& box,
                                              const std::string& work,
                                              const std::vector<std::string>& runner_args,
                                              const std::string& kernel_file, double limit_s) {
  Sandbox under = box;
  under.env = oclgrind_env(box.env);
  const std::string log = work + "/oclgrind.log";
  std::remove(log.c_str());
  ChildSpec spec = sandboxed(under, work, runner_args, limit_s,
                             {oclgrind, "--data-races", "--max-errors", "1", "--log", inside(box, work, log)});
  spec.out_path = work + ".oclgrind.stdout";
  spec.err_path = work + ".oclgrind.stderr";
  // Oclgrind notes when it stops reporting: the first finding is complete.
  spec.done_early = [&] { return read_file(log).find("suppressing further errors") != std::string::npos; };
  run_child(spec);
  std::remove(spec.out_path.c_str());
  std::remove(spec.err_path.c_str());
  const std::string finding = summarize_oclgrind_log(read_file(log), kernel_file);
  std::remove(log.c_str());
  return finding;
}

}  // namespace conv::grade
