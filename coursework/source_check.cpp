#include "coursework/source_check.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <regex>
#include <set>
#include <sstream>
#include <vector>

#include "common/program.hpp"
#include "coursework/structure.hpp"

namespace fs = std::filesystem;

namespace conv::grade {

namespace {

const char* const kAsmSpellings[] = {"asm", "__asm", "__asm__"};

bool is_ident_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool is_ident(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// The tokens of one logical line, roughly as the preprocessor sees them:
// identifiers and numbers whole, string and character literals whole,
// "##" as one token, any other character on its own.
std::vector<std::string> tokens_of(const std::string& line) {
  std::vector<std::string> tokens;
  for (std::size_t i = 0; i < line.size();) {
    const char c = line[i];
    if (std::isspace(static_cast<unsigned char>(c))) {
      ++i;
    } else if (is_ident(c)) {  // an identifier or a number (pp-number)
      std::size_t j = i;
      while (j < line.size() && (is_ident(line[j]) || line[j] == '.')) ++j;
      tokens.push_back(line.substr(i, j - i));
      i = j;
    } else if (c == '"' || c == '\'') {
      std::size_t j = i + 1;
      while (j < line.size() && line[j] != c) j += line[j] == '\\' ? 2 : 1;
      tokens.push_back(line.substr(i, std::min(j + 1, line.size()) - i));
      i = j + 1;
    } else if (c == '#' && i + 1 < line.size() && line[i + 1] == '#') {
      tokens.push_back("##");
      i += 2;
    } else {
      tokens.push_back(std::string(1, c));
      ++i;
    }
  }
  return tokens;
}

bool is_asm(const std::string& token) {
  return std::find(std::begin(kAsmSpellings), std::end(kAsmSpellings), token) != std::end(kAsmSpellings);
}

// A chain a ## b ## c makes one token that contains every operand written
// out (not a macro parameter): it cannot be an asm spelling when one of
// those is no part of "__asm__" (every spelling is part of that one).
std::string unsafe_paste(const std::vector<std::string>& tokens, const std::set<std::string>& params) {
  for (std::size_t i = 0; i < tokens.size(); ++i) {
    if (tokens[i] != "##" || i == 0) continue;
    std::size_t first = i - 1, last = i + 1;
    while (last + 2 < tokens.size() && tokens[last + 1] == "##") last += 2;
    if (last >= tokens.size()) return "a ## with nothing after it";
    bool safe = false;
    std::string joined, chain;
    for (std::size_t k = first; k <= last; k += 2) {
      const std::string& operand = tokens[k];
      chain += (chain.empty() ? "" : " ## ") + operand;
      if (params.count(operand)) continue;
      joined += operand;
      if (std::string("__asm__").find(operand) == std::string::npos) safe = true;
    }
    if (!safe) return "the token paste " + chain + " could make asm";
    i = last;
  }
  return "";
}

}  // namespace

std::string logical_text(const std::string& original) {
  static const std::pair<char, char> kTrigraphs[] = {{'=', '#'}, {'(', '['}, {'/', '\\'}, {')', ']'}, {'\'', '^'},
                                                     {'<', '{'}, {'!', '|'}, {'>', '}'}, {'-', '~'}};
  std::string text;
  for (std::size_t i = 0; i < original.size(); ++i) {
    if (original[i] == '?' && i + 2 < original.size() && original[i + 1] == '?') {
      const auto* t = std::find_if(std::begin(kTrigraphs), std::end(kTrigraphs),
                                   [&](const auto& p) { return p.first == original[i + 2]; });
      if (t != std::end(kTrigraphs)) {
        text += t->second;
        i += 2;
        continue;
      }
    }
    text += original[i];
  }
  std::string spliced;
  int pending = 0;  // line breaks removed by splices, put back at the line's end
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\\') {
      std::size_t j = i + 1;
      while (j < text.size() && (text[j] == ' ' || text[j] == '\t' || text[j] == '\r')) ++j;  // as clang allows
      if (j < text.size() && text[j] == '\n') {
        ++pending;
        i = j;
        continue;
      }
    }
    spliced += text[i];
    if (text[i] == '\n') spliced.append(static_cast<std::size_t>(pending), '\n'), pending = 0;
  }
  return strip_comments(spliced);
}

std::string find_inline_assembly(const std::string& text, const std::string& file) {
  static const std::regex line_directive(R"re(^\s*#\s*line\s+(\d+)(\s+"([^"]*)")?)re");
  static const std::regex define(R"(^\s*#\s*define\s+[A-Za-z_]\w*\(([^)]*)\))");
  std::string name = file;
  long line_no = 1;
  for (const std::string& line : lines_of(logical_text(text))) {
    std::smatch m;
    if (std::regex_search(line, m, line_directive)) {
      line_no = std::stol(m[1].str());
      if (m[3].matched) name = m[3].str();
      continue;
    }
    const std::string where = name + ", line " + std::to_string(line_no++) + ": ";
    const auto tokens = tokens_of(line);
    for (const auto& t : tokens)
      if (is_asm(t)) return where + "inline assembly (" + t + ")";
    std::set<std::string> params;
    if (std::regex_search(line, m, define)) {
      for (const auto& p : tokens_of(m[1].str()))
        if (is_ident_start(p[0])) params.insert(p);
      params.insert("__VA_ARGS__");
    }
    if (const std::string paste = unsafe_paste(tokens, params); !paste.empty())
      return where + paste + " (inline assembly is not accepted, and the grader does not guess what a "
                             "paste of macro arguments makes: write the name out)";
  }
  return "";
}

namespace {

struct Flattener {
  fs::path root;  // the student's folder; empty: no includes at all
  std::vector<fs::path> stack;
  std::string problem;

  // "helper.h" for root/helper.h: how a reason names a file.
  std::string shown(const fs::path& p) const {
    return root.empty() ? p.filename().string() : p.lexically_relative(root).string();
  }

  // The file an include names, or "" with `problem` set.
  fs::path resolve(const fs::path& from, const std::string& name, const std::string& where) {
    const fs::path p(name);
    if (name.empty() || p.is_absolute()) {
      problem = where + "#include of an absolute path: only files in your own folder may be included";
      return {};
    }
    for (const auto& part : p)
      if (part == "..") {
        problem = where + "#include with '..': only files in your own folder may be included";
        return {};
      }
    if (root.empty()) {
      problem = where + "#include in a submission that is one file: hand in a folder with the files it includes";
      return {};
    }
    // Where the compiler would look: beside the including file, then the
    // student's folder. Every part of the path must be a plain folder or
    // file there, not a symbolic link.
    for (const fs::path& base : {from.parent_path(), root}) {
      fs::path at = base;
      bool plain = true;
      for (const auto& part : p) {
        at /= part;
        struct stat st {};
        if (lstat(at.c_str(), &st) != 0) {
          plain = false;
          break;
        }
        if (S_ISLNK(st.st_mode)) {
          problem = where + "#include \"" + name + "\" names a symbolic link: include the file itself";
          return {};
        }
      }
      struct stat st {};
      if (plain && stat(at.c_str(), &st) == 0 && S_ISREG(st.st_mode)) return at;
    }
    problem = where + "#include \"" + name + "\" names no file in your folder";
    return {};
  }

  // The file's text with its includes copied in, between #line directives
  // so that the compiler's messages name the student's files and lines.
  std::string flatten(const fs::path& file, const std::string& text) {
    if (stack.size() > 16) {
      problem = shown(file) + ": includes nested more than 16 deep";
      return "";
    }
    stack.push_back(file);
    static const std::regex include(R"(^\s*#\s*(include|include_next|import|embed)\b\s*(.*?)\s*$)");
    const auto logical = lines_of(logical_text(text));
    const auto physical = lines_of(text);
    std::string out;
    bool changed = false;
    for (std::size_t i = 0; i < logical.size() && problem.empty(); ++i) {
      std::smatch m;
      if (!std::regex_search(logical[i], m, include)) {
        if (i < physical.size()) out += physical[i] + "\n";
        continue;
      }
      const std::string where = shown(file) + ", line " + std::to_string(i + 1) + ": ";
      const std::string operand = m[2].str();
      const bool quoted = operand.size() >= 2 && ((operand.front() == '"' && operand.back() == '"') ||
                                                  (operand.front() == '<' && operand.back() == '>'));
      if (!quoted) {
        problem = where + "a computed #include (a macro): name the file in quotes";
        break;
      }
      const fs::path target = resolve(file, operand.substr(1, operand.size() - 2), where);
      if (target.empty()) break;
      if (std::find(stack.begin(), stack.end(), target) != stack.end()) {
        problem = where + shown(target) + " includes itself";
        break;
      }
      const std::string name = shown(target);
      if (name.find_first_of("\"\\\n") != std::string::npos) {
        problem = where + "an included file's name holds a quote, backslash or line break";
        break;
      }
      std::string inner;
      try {
        inner = read_text_file(target.string());
      } catch (const std::exception&) {
        problem = where + name + " cannot be read";
        break;
      }
      out += "#line 1 \"" + name + "\"\n" + flatten(target, inner) + "#line " + std::to_string(i + 2) +
             " \"" + shown(file) + "\"\n";
      changed = true;
    }
    stack.pop_back();
    // A file without includes is built exactly as it was handed in.
    return changed ? out : text;
  }
};

}  // namespace

CheckedSource check_source(const std::string& kernel_path, const std::string& root) {
  CheckedSource c;
  Flattener f;
  f.root = root.empty() ? fs::path() : fs::path(root).lexically_normal();
  std::string text;
  try {
    text = read_text_file(kernel_path);
  } catch (const std::exception& e) {
    c.problem = e.what();
    return c;
  }
  c.source = f.flatten(fs::path(kernel_path).lexically_normal(), text);
  if (!f.problem.empty()) {
    c.problem = f.problem;
    c.source.clear();
    return c;
  }
  if (c.source != text) c.source = "#line 1 \"" + f.shown(fs::path(kernel_path)) + "\"\n" + c.source;
  c.problem = find_inline_assembly(c.source, f.shown(fs::path(kernel_path)));
  if (c.problem.empty()) {
    // Whatever the copying missed, the compiler must meet no include.
    static const std::regex include(R"(^\s*#\s*(include|include_next|import|embed)\b)");
    for (const auto& line : lines_of(logical_text(c.source)))
      if (std::regex_search(line, include)) c.problem = "an #include the grader could not follow";
  }
  if (!c.problem.empty()) c.source.clear();
  return c;
}

}  // namespace conv::grade
