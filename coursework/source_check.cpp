#include "coursework/source_check.hpp"

#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <set>
#include <vector>

#include "common/core/program.hpp"
#include "common/machinery/files.hpp"
#include "common/machinery/platform/process.hpp"
#include "coursework/structure.hpp"

namespace fs = std::filesystem;

namespace conv::grade {

namespace {

// ---------------------------------------------------------------------------
// Reading the text as clang's preprocessor does (the front end PoCL builds
// kernels with). What it could read in two ways is refused, not guessed.

bool is_ident_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool is_ident(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }
bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\f' || c == '\v'; }

// Every spelling of inline assembly, and the tests of a file's presence
// that could reach outside the submission.
const std::set<std::string> kAsmSpellings = {"asm", "__asm", "__asm__"};
const std::set<std::string> kFileTests = {"__has_include", "__has_include_next", "__has_embed"};
// What a chain of pastes must not be able to make: every word above is part
// of one of these.
const char* const kPasteTargets[] = {"__asm__", "__has_include_next", "__has_embed"};

struct Token {
  enum Kind { identifier, number, literal, header_name, punctuator } kind;
  std::string text;        // digraphs as what they stand for: %: is #, %:%: is ##, <: is [ ...
  long line = 0;           // the line of its first character
  std::size_t offset = 0;  // where its first character is in the text
  bool space_before = false;
};

// One logical line: the tokens between two line breaks that are not inside
// a comment (a line splice or a comment across lines does not end it).
struct LogicalLine {
  std::vector<Token> tokens;
  long first_line = 0, last_line = 0;  // the lines it starts and ends on
};

struct Reading {
  std::vector<LogicalLine> lines;
  std::string problem;  // "line N: ..." when the text cannot be read with certainty
};

// \r\n and a lone \r end a line as \n does, for clang as here.
std::string unify_line_breaks(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '\r') {
      out += text[i];
    } else {
      out += '\n';
      if (i + 1 < text.size() && text[i + 1] == '\n') ++i;
    }
  }
  return out;
}

bool is_trigraph_end(char c) { return std::string("=(/)'<!>-").find(c) != std::string::npos; }

Reading read_tokens(const std::string& text) {  // text: line breaks already \n
  Reading r;
  // Line splices (a backslash, blanks as clang allows, a line break) are
  // removed first; each remaining character keeps its place in the text.
  std::vector<std::size_t> at;  // at[k]: where character k of `s` is in `text`
  std::string s;
  std::vector<long> line_of(text.size() + 1, 1);
  for (std::size_t i = 0; i < text.size(); ++i) line_of[i + 1] = line_of[i] + (text[i] == '\n');
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '?' && i + 2 < text.size() && text[i + 1] == '?' && is_trigraph_end(text[i + 2])) {
      r.problem = "line " + std::to_string(line_of[i]) + ": a trigraph (??" + text[i + 2] +
                  "): write the character it stands for";
      return r;
    }
    if (text[i] == '\\') {
      std::size_t j = i + 1;
      while (j < text.size() && is_blank(text[j])) ++j;
      if (j < text.size() && text[j] == '\n') {
        i = j;
        continue;
      }
    }
    s += text[i];
    at.push_back(i);
  }
  at.push_back(text.size());
  const auto line = [&](std::size_t k) { return line_of[at[k]]; };
  const auto fail = [&](std::size_t k, const std::string& why) {
    r.problem = "line " + std::to_string(line(k)) + ": " + why;
  };

  LogicalLine current;
  bool space = false;
  std::size_t line_start = 0;  // where the current logical line starts in `s`
  const auto end_line = [&](std::size_t k) {
    current.first_line = line(line_start);
    current.last_line = line(k);
    r.lines.push_back(std::move(current));
    current = LogicalLine();
    line_start = k + 1;
  };
  const auto push = [&](Token::Kind kind, std::string t, std::size_t k) {
    Token token;
    token.kind = kind;
    token.text = std::move(t);
    token.line = line(k);
    token.offset = at[k];
    token.space_before = space;
    current.tokens.push_back(std::move(token));
    space = false;
  };
  // After "#include" (or #include_next, #import, #embed) a <...> is one name.
  const auto wants_header_name = [&]() {
    const auto& t = current.tokens;
    return t.size() == 2 && t[0].text == "#" && t[1].kind == Token::identifier &&
           (t[1].text == "include" || t[1].text == "include_next" || t[1].text == "import" ||
            t[1].text == "embed");
  };

  for (std::size_t i = 0; i < s.size() && r.problem.empty();) {
    const char c = s[i], next = i + 1 < s.size() ? s[i + 1] : '\0';
    if (c == '\n') {
      end_line(i);
      space = false;
      ++i;
    } else if (is_blank(c)) {
      space = true;
      ++i;
    } else if (c == '/' && next == '/') {
      while (i < s.size() && s[i] != '\n') ++i;
      space = true;
    } else if (c == '/' && next == '*') {
      const std::size_t end = s.find("*/", i + 2);
      if (end == std::string::npos) {
        fail(i, "a comment (/*) that is never closed");
        break;
      }
      i = end + 2;
      space = true;
    } else if (c == '"' || c == '\'' || (c == '<' && wants_header_name())) {
      const char close = c == '<' ? '>' : c;
      std::size_t j = i + 1;
      while (j < s.size() && s[j] != close && s[j] != '\n') j += (s[j] == '\\' && c != '<') ? 2 : 1;
      if (j >= s.size() || s[j] != close) {
        fail(i, c == '<' ? "an #include <...> without its closing >"
                         : std::string(c == '"' ? "a string" : "a character constant") +
                               " that is not closed on its line");
        break;
      }
      push(c == '<' ? Token::header_name : Token::literal, s.substr(i, j + 1 - i), i);
      i = j + 1;
    } else if (is_ident_start(c)) {
      std::size_t j = i;
      while (j < s.size() && is_ident(s[j])) ++j;
      push(Token::identifier, s.substr(i, j - i), i);
      i = j;
    } else if (std::isdigit(static_cast<unsigned char>(c)) ||
               (c == '.' && std::isdigit(static_cast<unsigned char>(next)))) {
      std::size_t j = i + 1;  // a pp-number: digits, letters, _, . and e+ e- p+ p-
      while (j < s.size() &&
             (is_ident(s[j]) || s[j] == '.' ||
              ((s[j] == '+' || s[j] == '-') && std::string("eEpP").find(s[j - 1]) != std::string::npos)))
        ++j;
      push(Token::number, s.substr(i, j - i), i);
      i = j;
    } else if (c == '\\') {
      fail(i, "a backslash outside a string that does not end the line (write names and characters out)");
    } else if (c == '$' || static_cast<unsigned char>(c) >= 0x7f || std::iscntrl(static_cast<unsigned char>(c))) {
      // clang reads some of these as parts of names and some (a Unicode
      // space) as blanks, so "asm<U+00A0>volatile" would be asm to it.
      fail(i, "a character outside plain ASCII (or '$', or a control character) outside comments and "
              "strings");
    } else {
      static const std::pair<const char*, const char*> kPunctuators[] = {
          {"%:%:", "##"}, {"##", "##"}, {"%:", "#"}, {"...", "..."}, {"<:", "["},
          {":>", "]"},   {"<%", "{"},  {"%>", "}"}};
      const auto* p = std::find_if(std::begin(kPunctuators), std::end(kPunctuators),
                                   [&](const auto& q) { return s.compare(i, std::char_traits<char>::length(q.first), q.first) == 0; });
      if (p != std::end(kPunctuators)) {
        push(Token::punctuator, p->second, i);
        i += std::char_traits<char>::length(p->first);
      } else {
        push(Token::punctuator, std::string(1, c), i);
        ++i;
      }
    }
  }
  if (r.problem.empty() && (!current.tokens.empty() || line_start < s.size())) end_line(s.size() - (s.empty() ? 0 : 1));
  if (!r.problem.empty()) r.lines.clear();
  return r;
}

bool is_directive(const LogicalLine& l, const char* name) {
  return l.tokens.size() >= 2 && l.tokens[0].text == "#" && l.tokens[1].kind == Token::identifier &&
         l.tokens[1].text == name;
}

// A chain a ## b ## c makes one token that contains every operand written
// out. `unknown` operands (a macro's parameters, __VA_ARGS__, __VA_OPT__
// and anything that is not a name or a number, such as the ')' that ends
// __VA_OPT__(...)) may be anything. The paste is safe when, for each word
// it must not make, one known operand is no part of that word.
std::string unsafe_paste(const std::vector<Token>& tokens, std::size_t begin, const std::set<std::string>& params) {
  const auto unknown = [&](const Token& t) {
    return params.count(t.text) || t.text == "__VA_ARGS__" || t.text == "__VA_OPT__" ||
           (t.kind != Token::identifier && t.kind != Token::number);
  };
  for (std::size_t i = begin; i < tokens.size(); ++i) {
    if (tokens[i].text != "##") continue;
    if (i == begin || i + 1 >= tokens.size() || tokens[i + 1].text == "##")
      return "a ## with nothing on one side";
    std::size_t last = i + 1;
    while (last + 2 < tokens.size() && tokens[last + 1].text == "##") last += 2;
    if (tokens[last].text == "##") return "a ## with nothing on one side";
    std::string chain;
    bool safe = true;
    for (const char* word : kPasteTargets) {
      bool cannot = false;
      for (std::size_t k = i - 1; k <= last; k += 2)
        if (!unknown(tokens[k]) && std::string(word).find(tokens[k].text) == std::string::npos) cannot = true;
      safe = safe && cannot;
    }
    for (std::size_t k = i - 1; k <= last; k += 2) chain += (chain.empty() ? "" : " ## ") + tokens[k].text;
    if (!safe) return "the token paste " + chain + " could make asm";
    i = last;
  }
  return "";
}

// A #define's parameters: names, "...", a GNU named variadic "rest...".
// Returns false when the list cannot be read; `body` is where the
// replacement list starts.
bool macro_parameters(const LogicalLine& l, std::set<std::string>& params, std::size_t& body) {
  const auto& t = l.tokens;
  body = 3;
  if (t.size() < 4 || t[3].text != "(" || t[3].space_before) return true;  // an object-like macro
  std::size_t i = 4;
  if (i < t.size() && t[i].text == ")") {
    body = i + 1;
    return true;
  }
  while (i < t.size()) {
    if (t[i].text == "...") {
      params.insert("__VA_ARGS__");
      ++i;
    } else if (t[i].kind == Token::identifier) {
      params.insert(t[i].text);
      if (++i < t.size() && t[i].text == "...") ++i;  // GNU: "rest..." is the variadic part
    } else {
      return false;
    }
    if (i < t.size() && t[i].text == ")") {
      body = i + 1;
      return true;
    }
    if (i >= t.size() || t[i].text != ",") return false;
    ++i;
  }
  return false;
}

// The first inline assembly, file test or unsafe paste in the reading;
// the lines named as #line directives in it say.
std::string scan(const Reading& r, const std::string& file) {
  std::string name = file;
  long shift = 0;  // a line's shown number minus its number in the text
  for (const LogicalLine& l : r.lines) {
    const auto& t = l.tokens;
    if (t.empty()) continue;
    if (is_directive(l, "line") && t.size() >= 3 && t[2].kind == Token::number &&
        std::all_of(t[2].text.begin(), t[2].text.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); })) {
      shift = std::stol(t[2].text) - (l.last_line + 1);
      if (t.size() >= 4 && t[3].kind == Token::literal && t[3].text.front() == '"')
        name = t[3].text.substr(1, t[3].text.size() - 2);
      continue;
    }
    for (const Token& token : t) {
      const std::string where = name + ", line " + std::to_string(token.line + shift) + ": ";
      if (token.kind != Token::identifier) continue;
      if (kAsmSpellings.count(token.text)) return where + "inline assembly (" + token.text + ")";
      if (kFileTests.count(token.text))
        return where + token.text + " tests for a file: only files in your own folder may be used";
    }
    std::set<std::string> params;
    std::size_t body = 0;
    if (is_directive(l, "define") && t.size() >= 3) {
      if (!macro_parameters(l, params, body))
        return name + ", line " + std::to_string(t[0].line + shift) +
               ": a macro's parameter list the grader cannot read";
    }
    if (const std::string paste = unsafe_paste(t, body, params); !paste.empty())
      return name + ", line " + std::to_string(t[0].line + shift) + ": " + paste +
             " (inline assembly is not accepted, and the grader does not guess what a paste of macro "
             "arguments makes: write the name out)";
  }
  return "";
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::size_t from = 0;
  while (from < text.size()) {
    std::size_t end = text.find('\n', from);
    if (end == std::string::npos) end = text.size();
    lines.push_back(text.substr(from, end - from));
    from = end + 1;
  }
  return lines;
}

}  // namespace

std::string logical_text(const std::string& original) {
  static const std::pair<char, char> kTrigraphs[] = {{'=', '#'}, {'(', '['}, {'/', '\\'}, {')', ']'}, {'\'', '^'},
                                                     {'<', '{'}, {'!', '|'}, {'>', '}'}, {'-', '~'}};
  const std::string unified = unify_line_breaks(original);
  std::string text;
  for (std::size_t i = 0; i < unified.size(); ++i) {
    if (unified[i] == '?' && i + 2 < unified.size() && unified[i + 1] == '?') {
      const auto* t = std::find_if(std::begin(kTrigraphs), std::end(kTrigraphs),
                                   [&](const auto& p) { return p.first == unified[i + 2]; });
      if (t != std::end(kTrigraphs)) {
        text += t->second;
        i += 2;
        continue;
      }
    }
    text += unified[i];
  }
  std::string spliced;
  int pending = 0;  // line breaks removed by splices, put back at the line's end
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\\') {
      std::size_t j = i + 1;
      while (j < text.size() && is_blank(text[j])) ++j;  // as clang allows
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
  const Reading r = read_tokens(unify_line_breaks(text));
  if (!r.problem.empty()) return file + ", " + r.problem;
  return scan(r, file);
}

// ---------------------------------------------------------------------------
std::string not_plain_file(const std::string& path, const std::string& shown) {
  struct stat st {};
  if (lstat(path.c_str(), &st) != 0) return shown + ": cannot be read";
  if (S_ISLNK(st.st_mode)) return shown + ": a symbolic link; hand in the file itself";
  if (!S_ISREG(st.st_mode)) return shown + ": not a regular file; hand in a plain file";
  if (st.st_nlink > 1)
    return shown + ": a hard link (" + std::to_string(st.st_nlink) +
           " names for one file, which may be outside your folder); hand in a copy of the file";
  return "";
}

// The real preprocessor, as a second opinion.

namespace {

// The macros the steps' launchers define that kernels test: a kernel is
// preprocessed once without them and once with all of them.
const char* const kLauncherMacros[] = {"FILTER_WIDTH=3", "BLOCK_X=4",   "BLOCK_Y=2", "REMAINDER_IFELSE",
                                       "ALIGNED_PITCH",  "SCALAR_LOADS", "UNROLL_ROWS", "TAPS_X=1",
                                       "TAPS_Y=1",       "WG_X=16",      "WG_Y=16"};
// The preprocessor runs a submission's macros, which can grow without end
// (a macro that expands its argument eight times, nested twelve deep): it
// gets an address-space limit, CPU time and wall time, and its output a cap.
constexpr double kPreprocessSeconds = 10;
constexpr std::uint64_t kPreprocessCpuSeconds = 10;
constexpr std::uint64_t kPreprocessMemoryBytes = std::uint64_t{512} << 20;
constexpr std::uint64_t kPreprocessedBytes = 8u << 20;  // what run_child hands back whole

std::string executable_on_path(const std::string& name) {
  const char* path = getenv("PATH");
  std::string dirs = path ? path : "/usr/bin:/bin";
  std::size_t from = 0;
  while (from <= dirs.size()) {
    std::size_t end = dirs.find(':', from);
    if (end == std::string::npos) end = dirs.size();
    const std::string dir = dirs.substr(from, end - from);
    if (!dir.empty()) {
      const std::string candidate = dir + "/" + name;
      if (access(candidate.c_str(), X_OK) == 0) return candidate;
    }
    from = end + 1;
  }
  return "";
}

// A folder of its own under the system's temporary folder, removed with it.
struct TempFolder {
  std::string path;
  TempFolder() {
    std::string pattern = (fs::temp_directory_path() / "clconv-preprocess-XXXXXX").string();
    if (mkdtemp(pattern.data())) path = pattern;
  }
  ~TempFolder() {
    std::error_code ignored;
    if (!path.empty()) fs::remove_all(path, ignored);
  }
};

}  // namespace

std::string preprocessor_path() {
  static const std::string found = [] {
    if (access("/usr/bin/clang-15", X_OK) == 0) return std::string("/usr/bin/clang-15");  // PoCL's (Debian 12)
    if (std::string p = executable_on_path("clang"); !p.empty()) return p;
    return executable_on_path("cpp");
  }();
  return found;
}

std::string preprocessed_assembly(const std::string& source, const std::string& file) {
  const std::string program = preprocessor_path();
  if (program.empty()) return "";  // none installed: the reading above decides alone
  const bool clang = fs::path(program).filename().string().rfind("clang", 0) == 0;
  TempFolder folder;
  if (folder.path.empty()) return file + ": the grader cannot make a temporary folder to preprocess it in";
  const std::string copy = folder.path + "/kernel.cl";
  {
    std::ofstream out(copy, std::ios::binary);
    out << source;
    if (!out.flush()) return file + ": the grader cannot write a temporary copy to preprocess";
  }
  for (const bool with_macros : {false, true}) {
    ChildSpec spec;
    // No include path at all, not even the compiler's own headers: the copy
    // holds every file the kernel includes. (clang's OpenCL mode includes its
    // default header unless told -cl-no-stdinc.)
    // -fno-crash-diagnostics: clang that runs out of memory writes no copy
    // of the source to the temporary folder for a bug report.
    if (clang)
      spec.argv = {program, "-fno-crash-diagnostics", "-x", "cl", "-cl-std=CL1.2", "-cl-no-stdinc", "-nostdinc",
                   "-E", "-P", copy};
    else
      spec.argv = {program, "-x", "c", "-E", "-P", "-undef", "-nostdinc", copy};
    if (with_macros)
      for (const char* m : kLauncherMacros) spec.argv.push_back(std::string("-D") + m);
    spec.timeout_s = kPreprocessSeconds;
    spec.out_path = folder.path + "/out.txt";
    spec.err_path = folder.path + "/err.txt";
    spec.file_bytes = kPreprocessedBytes;
    spec.no_core_dumps = true;
    spec.memory_bytes = kPreprocessMemoryBytes;  // clang itself, never a sanitized build
    spec.cpu_seconds = kPreprocessCpuSeconds;
    const ChildResult r = run_child(spec);
    const std::string how = with_macros ? " with the launchers' macros" : "";
    if (r.timed_out || r.signal == SIGXCPU)
      return file + ": the preprocessor" + how + " ran out of time on this submission (" +
             std::to_string(static_cast<int>(kPreprocessSeconds)) + " s)";
    if (r.signal == SIGXFSZ)
      return file + ": the preprocessed kernel" + how + " is larger than " +
             std::to_string(kPreprocessedBytes >> 20) + " MiB";
    if (r.err.find("out of memory") != std::string::npos || r.err.find("bad_alloc") != std::string::npos ||
        r.err.find("memory exhausted") != std::string::npos)
      return file + ": the preprocessor" + how + " ran out of memory on this submission (" +
             std::to_string(kPreprocessMemoryBytes >> 20) + " MiB)";
    if (r.signal != 0 || r.status < 0) return file + ": the preprocessor" + how + " did not end normally";
    // Another error (an #error for a missing macro) is the build's to report.
    if (r.status != 0 && (r.err.find("file not found") != std::string::npos ||
                          r.err.find("No such file") != std::string::npos || r.err.find("#include") != std::string::npos))
      return file + ": an #include the grader could not follow (the preprocessor" + how + " failed on it)";
    const Reading out = read_tokens(unify_line_breaks(r.out));
    if (!out.problem.empty()) return file + ": after preprocessing" + how + ", text the grader cannot read";
    for (const LogicalLine& l : out.lines)
      for (const Token& t : l.tokens)
        if (t.kind == Token::identifier && (kAsmSpellings.count(t.text) || kFileTests.count(t.text)))
          return file + ": inline assembly after preprocessing" + how + " (" + t.text + ")";
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
    if (name.find('\\') != std::string::npos) {
      problem = where + "#include of a name with a backslash: name a file in your own folder";
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
      if (plain) {  // every part is there, and none is a symbolic link
        if (const std::string why = not_plain_file(at.string(), ""); !why.empty()) {
          problem = where + "#include \"" + name + "\"" + why;
          return {};
        }
        return at;
      }
    }
    problem = where + "#include \"" + name + "\" names no file in your folder";
    return {};
  }

  // The file's text (line breaks as \n) with its includes copied in, between
  // #line directives so that the compiler's messages name the student's
  // files and lines.
  std::string flatten(const fs::path& file, const std::string& original) {
    if (stack.size() > 16) {
      problem = shown(file) + ": includes nested more than 16 deep";
      return "";
    }
    stack.push_back(file);
    const std::string text = unify_line_breaks(original);
    const Reading reading = read_tokens(text);
    if (!reading.problem.empty()) {
      problem = shown(file) + ", " + reading.problem;
      stack.pop_back();
      return "";
    }
    const auto physical = lines_of(text);
    std::string out;
    long copied = 0;  // lines of `physical` already in `out`
    const auto copy_to = [&](long line) {  // copies the lines before `line`
      for (; copied < line - 1 && copied < static_cast<long>(physical.size()); ++copied) out += physical[copied] + "\n";
    };
    for (const LogicalLine& l : reading.lines) {
      const auto& t = l.tokens;
      if (t.size() < 2 || t[0].text != "#" || t[1].kind != Token::identifier) continue;
      const std::string directive = t[1].text;
      if (directive != "include" && directive != "include_next" && directive != "import" && directive != "embed")
        continue;
      const std::string where = shown(file) + ", line " + std::to_string(t[0].line) + ": ";
      if (directive != "include") {
        problem = where + "#" + directive + " is not accepted: #include a file in your own folder";
        break;
      }
      // The directive must have its lines to itself: they are replaced.
      const std::size_t line_begin = text.rfind('\n', t[0].offset == 0 ? 0 : t[0].offset - 1);
      const std::size_t from = t[0].offset == 0 || line_begin == std::string::npos ? 0 : line_begin + 1;
      const bool own_line = l.first_line == t[0].line &&
                            std::all_of(text.begin() + static_cast<long>(from), text.begin() + static_cast<long>(t[0].offset),
                                        [](char c) { return is_blank(c); });
      if (!own_line) {
        problem = where + "an #include must begin its own line";
        break;
      }
      if (t.size() < 3 || t[2].kind == Token::identifier) {
        problem = where + "a computed #include (a macro): name the file in quotes";
        break;
      }
      const bool quoted = (t[2].kind == Token::literal && t[2].text.front() == '"') || t[2].kind == Token::header_name;
      if (!quoted || t.size() > 3) {
        problem = where + "an #include must name one file in quotes, with nothing after it";
        break;
      }
      const fs::path target = resolve(file, t[2].text.substr(1, t[2].text.size() - 2), where);
      if (target.empty()) break;
      if (std::find(stack.begin(), stack.end(), target) != stack.end()) {
        problem = where + shown(target) + " includes itself";
        break;
      }
      const std::string name = shown(target);
      if (name.find_first_of("\"\\\n\r") != std::string::npos) {
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
      std::string flat = flatten(target, inner);
      if (!problem.empty()) break;
      if (!flat.empty() && flat.back() != '\n') flat += '\n';
      copy_to(l.first_line);
      out += "#line 1 \"" + name + "\"\n" + flat + "#line " + std::to_string(l.last_line + 1) + " \"" + shown(file) + "\"\n";
      copied = l.last_line;
    }
    stack.pop_back();
    if (!problem.empty()) return "";
    if (copied == 0) return text;  // a file without includes is built as it was handed in
    copy_to(static_cast<long>(physical.size()) + 1);
    return out;
  }
};

}  // namespace

CheckedSource check_source(const std::string& kernel_path, const std::string& root) {
  CheckedSource c;
  Flattener f;
  f.root = root.empty() ? fs::path() : fs::path(root).lexically_normal();
  std::string text;
  if (const std::string why = not_plain_file(kernel_path, f.shown(fs::path(kernel_path))); !why.empty()) {
    c.problem = why;
    return c;
  }
  try {
    text = read_text_file(kernel_path);
  } catch (const std::exception& e) {
    c.problem = e.what();
    return c;
  }
  const std::string shown = f.shown(fs::path(kernel_path));
  c.source = f.flatten(fs::path(kernel_path).lexically_normal(), text);
  if (!f.problem.empty()) {
    c.problem = f.problem;
    c.source.clear();
    return c;
  }
  if (c.source != unify_line_breaks(text)) c.source = "#line 1 \"" + shown + "\"\n" + c.source;
  c.problem = find_inline_assembly(c.source, shown);
  if (c.problem.empty()) {
    // Whatever the copying missed, the compiler must meet no include.
    const Reading r = read_tokens(c.source);
    for (const LogicalLine& l : r.lines)
      if (is_directive(l, "include") || is_directive(l, "include_next") || is_directive(l, "import") ||
          is_directive(l, "embed"))
        c.problem = shown + ": an #include the grader could not follow";
  }
  if (c.problem.empty()) c.problem = preprocessed_assembly(c.source, shown);
  if (!c.problem.empty()) c.source.clear();
  return c;
}

}  // namespace conv::grade
