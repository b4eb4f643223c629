#include "coursework/structure.hpp"

#include <map>
#include <regex>

namespace conv::grade {

namespace {

const StructureCheck kLocalTile{
    "local-tile", "the kernel writes its __local tile argument and reads from it"};
const StructureCheck kBarrier{
    "barrier", "the kernel calls barrier(CLK_LOCAL_MEM_FENCE) (or work_group_barrier)"};
const StructureCheck kFloat4{
    "float4-loads", "the kernel loads float4s (vload4, or through a float4 pointer)"};
const StructureCheck kBlock{
    "block-per-work-item", "the kernel uses BLOCK_X and BLOCK_Y, the block of outputs each "
                           "work-item computes (the launcher starts one work-item per block)"};

// Each step's idea, and the ideas of the steps before it that its kernel
// keeps. Step 4's unrolling is not checked: no rule on the text tells a
// loop unrolled by hand from one the compiler unrolls.
const std::map<std::string, std::vector<StructureCheck>> kChecks = {
    {"step3-local", {kLocalTile, kBarrier}},
    {"step4-unroll", {kLocalTile, kBarrier}},
    {"step5-vector", {kLocalTile, kBarrier, kFloat4}},
    {"step6-multioutput", {kLocalTile, kBarrier, kFloat4, kBlock}},
};

struct Kernel {
  bool found = false;
  std::vector<std::string> params;
  std::string body;
};

std::size_t matching(const std::string& text, std::size_t open, char a, char b) {
  int depth = 0;
  for (std::size_t i = open; i < text.size(); ++i) {
    if (text[i] == a) ++depth;
    if (text[i] == b && --depth == 0) return i;
  }
  return std::string::npos;
}

Kernel find_kernel(const std::string& code, const std::string& name) {
  Kernel k;
  const std::regex head("\\b(__kernel|kernel)\\b[^;{}]*?\\b" + name + "\\s*\\(");
  std::smatch m;
  if (!std::regex_search(code, m, head)) return k;
  const std::size_t open = static_cast<std::size_t>(m.position(0) + m.length(0) - 1);
  const std::size_t close = matching(code, open, '(', ')');
  if (close == std::string::npos) return k;
  const std::size_t body_open = code.find('{', close);
  const std::size_t body_close = body_open == std::string::npos ? body_open : matching(code, body_open, '{', '}');
  if (body_close == std::string::npos) return k;
  std::string param;
  int depth = 0;
  for (std::size_t i = open + 1; i < close; ++i) {
    const char c = code[i];
    depth += c == '(' ? 1 : c == ')' ? -1 : 0;
    if (c == ',' && depth == 0) {
      k.params.push_back(param);
      param.clear();
    } else {
      param += c;
    }
  }
  k.params.push_back(param);
  k.body = code.substr(body_open, body_close - body_open + 1);
  k.found = true;
  return k;
}

std::string last_identifier(const std::string& text) {
  static const std::regex ident("[A-Za-z_][A-Za-z0-9_]*");
  std::string last;
  for (auto it = std::sregex_iterator(text.begin(), text.end(), ident); it != std::sregex_iterator(); ++it)
    last = it->str();
  return last;
}

bool is_ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// The function whose argument list holds position `at`, or "" at statement level.
std::string enclosing_call(const std::string& body, std::size_t at) {
  int depth = 0;
  for (std::size_t i = at; i-- > 0;) {
    const char c = body[i];
    if (c == ';' || c == '{' || c == '}') return "";
    if (c == ')') ++depth;
    if (c == '(' && depth-- == 0) {
      std::size_t e = i;
      while (e > 0 && std::isspace(static_cast<unsigned char>(body[e - 1]))) --e;
      std::size_t b = e;
      while (b > 0 && is_ident_char(body[b - 1])) --b;
      return body.substr(b, e - b);  // "" for a plain parenthesis
    }
  }
  return "";
}

// After `name` at `after`: an index and then an assignment (= or op=, not ==)?
bool assigned_through_index(const std::string& body, std::size_t after) {
  std::size_t i = after;
  while (i < body.size() && std::isspace(static_cast<unsigned char>(body[i]))) ++i;
  if (i >= body.size() || body[i] != '[') return false;
  i = matching(body, i, '[', ']');
  if (i == std::string::npos) return false;
  ++i;
  while (i < body.size() && std::isspace(static_cast<unsigned char>(body[i]))) ++i;
  if (i < body.size() && std::string("+-*/").find(body[i]) != std::string::npos) ++i;
  return i + 1 < body.size() && body[i] == '=' && body[i + 1] != '=';
}

std::string check_local_tile(const Kernel& k) {
  std::string tile;
  static const std::regex local_qualifier("\\b(__local|local)\\b");
  for (const auto& p : k.params)
    if (std::regex_search(p, local_qualifier)) {
      tile = last_identifier(p);
      break;
    }
  if (tile.empty()) return "the kernel has no __local argument (the skeleton's tile)";
  int writes = 0, reads = 0;
  const std::regex word("\\b" + tile + "\\b");
  const std::string& b = k.body;
  for (auto it = std::sregex_iterator(b.begin(), b.end(), word); it != std::sregex_iterator(); ++it) {
    const std::size_t at = static_cast<std::size_t>(it->position(0));
    const std::string call = enclosing_call(b, at);
    if (std::regex_match(call, std::regex("vstore(_half)?[0-9]*"))) {
      ++writes;
    } else if (std::regex_match(call, std::regex("vload(_half)?[0-9]*"))) {
      ++reads;
    } else if (!call.empty() && !std::regex_match(call, std::regex("(mad|fma|min|max|dot|sqrt|fabs)"))) {
      ++writes, ++reads;  // handed to a helper: it may do either
    } else if (assigned_through_index(b, at + tile.size())) {
      ++writes;
    } else {
      ++reads;
    }
  }
  if (writes + reads == 0)
    return "the kernel never uses its __local argument '" + tile +
           "': the step computes from a tile copied into local memory";
  if (writes == 0) return "the kernel reads its __local tile '" + tile + "' but never fills it";
  if (reads == 0)
    return "the kernel fills its __local tile '" + tile +
           "' but never reads it: the sums must come from the tile";
  return "";
}

std::string check_barrier(const std::string& code) {
  static const std::regex call("\\b(work_group_barrier|barrier)\\s*\\(([^;]*)\\)");
  bool any = false;
  for (auto it = std::sregex_iterator(code.begin(), code.end(), call); it != std::sregex_iterator(); ++it) {
    any = true;
    if ((*it)[2].str().find("CLK_LOCAL_MEM_FENCE") != std::string::npos) return "";
  }
  return any ? "no barrier has CLK_LOCAL_MEM_FENCE: the tile's writes are not ordered before "
               "its reads"
             : "no barrier(CLK_LOCAL_MEM_FENCE): every work-item must wait until the whole "
               "tile is copied before reading it";
}

std::string check_float4(const std::string& code) {
  static const std::regex load("\\bvload4\\s*\\(|\\bfloat4\\s*\\*");
  return std::regex_search(code, load) ? ""
                                       : "no float4 loads (vload4, or a float4 pointer): the step "
                                         "copies the tile four floats at a time";
}

std::string check_block(const std::string& code) {
  static const std::regex x("\\bBLOCK_X\\b"), y("\\bBLOCK_Y\\b");
  return std::regex_search(code, x) && std::regex_search(code, y)
             ? ""
             : "BLOCK_X and BLOCK_Y are not both used: each work-item computes a BLOCK_X x "
               "BLOCK_Y block of outputs";
}

}  // namespace

std::string strip_comments(const std::string& s) {
  std::string out = s;
  enum { code, line, block, str, chr } state = code;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const char c = s[i], next = i + 1 < s.size() ? s[i + 1] : '\0';
    switch (state) {
      case code:
        if (c == '/' && next == '/') state = line, out[i] = ' ';
        else if (c == '/' && next == '*') state = block, out[i] = out[i + 1] = ' ', ++i;
        else if (c == '"') state = str;
        else if (c == '\'') state = chr;
        break;
      case line:
        if (c == '\n') state = code;
        else out[i] = ' ';
        break;
      case block:
        if (c == '*' && next == '/') state = code, out[i] = out[i + 1] = ' ', ++i;
        else if (c != '\n') out[i] = ' ';
        break;
      case str:
      case chr:
        if (c == '\\') ++i;
        else if (c == (state == str ? '"' : '\'') || c == '\n') state = code;
        break;
    }
  }
  return out;
}

std::vector<StructureCheck> structure_checks(const std::string& step_name) {
  const auto it = kChecks.find(step_name);
  return it == kChecks.end() ? std::vector<StructureCheck>{} : it->second;
}

std::vector<std::string> check_structure(const std::string& step_name, const std::string& source,
                                         const std::string& kernel_name) {
  std::vector<std::string> failed;
  const std::string code = strip_comments(source);
  const Kernel kernel = find_kernel(code, kernel_name);
  if (!kernel.found) return failed;
  for (const auto& check : structure_checks(step_name)) {
    std::string problem;
    if (check.name == kLocalTile.name) problem = check_local_tile(kernel);
    if (check.name == kBarrier.name) problem = check_barrier(code);
    if (check.name == kFloat4.name) problem = check_float4(code);
    if (check.name == kBlock.name) problem = check_block(code);
    if (!problem.empty()) failed.push_back(check.name + ": " + problem);
  }
  return failed;
}

}  // namespace conv::grade
