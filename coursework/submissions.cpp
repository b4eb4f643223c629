#include "coursework/submissions.hpp"

#include <algorithm>
#include <cctype>
#include <filesystem>

#include "common/core/errors.hpp"
#include "common/core/program.hpp"
#include "common/machinery/files.hpp"
#include "coursework/source_check.hpp"

namespace fs = std::filesystem;

namespace conv::grade {

namespace {

// Reads the kernel; an empty file is "missing" (nothing was handed in), one
// that cannot be read or is no text is "unreadable".
void load(Submission& s) {
  // A symbolic link is not followed (its target is not the student's to hand
  // in), a hard link not read (its other name may be another's file), nor
  // anything but a regular file (a FIFO would block).
  if (const std::string why = not_plain_file(s.path, s.path); !why.empty()) {
    s.problem_verdict = why.find("cannot be read") != std::string::npos ? "unreadable" : "forbidden";
    s.problem = why;
    return;
  }
  try {
    s.source = read_text_file(s.path);
  } catch (const std::exception& e) {
    const std::string what = e.what();
    s.problem_verdict = what.find("file is empty") != std::string::npos ? "missing" : "unreadable";
    s.problem = what;
    return;
  }
  if (s.source.find_first_not_of(" \t\r\n") == std::string::npos) {
    s.problem_verdict = "missing";
    s.problem = s.path + ": holds only white space";
  } else if (const auto nul = s.source.find('\0'); nul != std::string::npos) {
    s.problem_verdict = "unreadable";
    s.problem = s.path + ": not a text file (a NUL byte at offset " + std::to_string(nul) + ")";
  }
}

Submission from_folder(const fs::path& dir, const std::string& step_name) {
  Submission s;
  s.student = dir.filename().string();
  s.root = dir.string();
  std::vector<fs::path> kernels;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec))
    if (e.path().extension() == ".cl" && e.path().filename().string()[0] != '.') kernels.push_back(e.path());
  std::sort(kernels.begin(), kernels.end());
  for (const std::string& name : {step_name + ".cl", std::string("convolve.cl")})
    if (std::find(kernels.begin(), kernels.end(), dir / name) != kernels.end()) {
      s.path = (dir / name).string();
      load(s);
      return s;
    }
  if (kernels.size() == 1) {
    s.path = kernels.front().string();
    load(s);
    return s;
  }
  s.path = dir.string();
  s.problem_verdict = "missing";
  if (ec) {
    s.problem_verdict = "unreadable";
    s.problem = dir.string() + ": cannot list the folder: " + ec.message();
  } else if (kernels.empty()) {
    s.problem = dir.string() + ": no " + step_name + ".cl, convolve.cl or other .cl file in the folder";
  } else {
    std::string names;
    for (const auto& k : kernels) names += (names.empty() ? "" : ", ") + k.filename().string();
    s.problem = dir.string() + ": several .cl files (" + names + ") and none called " + step_name +
                ".cl or convolve.cl";
  }
  return s;
}

}  // namespace

std::vector<Submission> find_submissions(const std::string& folder, const std::string& step_name) {
  std::error_code ec;
  if (!fs::is_directory(folder, ec)) throw UsageError(folder + ": not a folder of submissions");
  std::vector<fs::directory_entry> entries;
  for (const auto& e : fs::directory_iterator(folder, ec)) entries.push_back(e);
  if (ec) throw Error(folder + ": cannot list the folder: " + ec.message());
  std::vector<Submission> subs;
  for (const auto& e : entries) {
    const std::string name = e.path().filename().string();
    if (name.empty() || name[0] == '.') continue;
    std::error_code kind;
    Submission s;
    s.student = e.path().stem().string();
    s.path = e.path().string();
    if (e.is_symlink(kind)) {
      s.problem_verdict = "forbidden";
      s.problem = name + ": a symbolic link; hand in the file or folder itself";
    } else if (e.is_directory(kind)) {
      s = from_folder(e.path(), step_name);
    } else if (e.path().extension() == ".cl") {
      load(s);
    } else {
      s.problem_verdict = "not-graded";
      std::string ext = e.path().extension().string();
      for (char& c : ext) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      s.problem = name + (ext == ".cl" ? ": not graded: a kernel file's name ends in .cl, in lower case"
                                       : ": not graded: neither a .cl file nor a student's folder");
    }
    subs.push_back(s);
  }
  std::sort(subs.begin(), subs.end(),
            [](const Submission& a, const Submission& b) { return a.student < b.student || (a.student == b.student && a.path < b.path); });
  // A student with both a file and a folder: both are graded, told apart by path.
  for (std::size_t i = 1; i < subs.size(); ++i)
    if (subs[i].student == subs[i - 1].student)
      subs[i].student = fs::path(subs[i].path).lexically_relative(folder).string();
  return subs;
}

}  // namespace conv::grade
