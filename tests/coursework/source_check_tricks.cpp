// The source check against the ways a class could hide inline assembly or
// an include from it: digraphs (%: for #, %:%: for ##), a lone \r ending a
// line or a comment, GNU named variadic parameters, __VA_ARGS__ and
// __VA_OPT__ pastes, __has_include, #include_next and #import, and text
// that could be read in two ways. Each gets the verdict forbidden (a
// problem) with a reason that quotes nothing outside the submission; every
// step's own kernel still passes, with any line endings.
#include "tests/catch.hpp"

#include <chrono>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>

#include "common/machinery/device_choice.hpp"
#include "common/machinery/guard.hpp"
#include "common/machinery/program_cache.hpp"
#include "common/machinery/reference.hpp"
#include "common/machinery/registry.hpp"
#include "common/machinery/report.hpp"
#include "common/machinery/settings.hpp"
#include "coursework/source_check.hpp"
#include "tests/files.hpp"
#include "tests/support.hpp"

namespace fs = std::filesystem;
using conv::test::write_file;
using namespace conv::grade;

namespace {

// A kernel that computes the right answer, for the tricks to hide in.
const std::string kBody =
    "__kernel void convolve(__global const float* input, __global const float* filter, __global float* output,\n"
    "                       const int in_pitch, const int out_width, const int out_height, const int fw) {\n"
    "  const int x = get_global_id(0), y = get_global_id(1);\n"
    "  if (x >= out_width || y >= out_height) return;\n"
    "  float sum = 0.0f;\n"
    "  for (int r = 0; r < fw; r++) for (int c = 0; c < fw; c++) sum += filter[r*fw + c] * input[(y + r) * in_pitch + x + c];\n"
    "  output[y * out_width + x] = sum;\n"
    "}\n";

const std::string kSyscall = " volatile(\"syscall\" : : \"a\"(60L) : \"rcx\", \"r11\", \"memory\");";

// The text with every \n written as `ending`.
std::string with_line_ends(const std::string& text, const std::string& ending) {
  std::string out;
  for (char c : text) out += c == '\n' ? ending : std::string(1, c);
  return out;
}

struct Folder {
  fs::path dir = fs::path(conv::test::scratch_dir()) / "tricks";
  fs::path secret = dir / "secret.h";
  fs::path root = dir / "ann";
  Folder() {
    write_file(secret, "TOPSECRET_text\n");
    write_file(root / "helper.h", "#define W 3\n");
  }
  CheckedSource check(const std::string& text) const {
    write_file(root / "k.cl", text);
    return check_source((root / "k.cl").string(), root.string());
  }
};

}  // namespace

TEST_CASE("hidden inline assembly is refused however the text spells it", "[grade][source]") {
  const Folder f;
  const std::string as = "__as";
  const std::vector<std::pair<std::string, std::string>> tricks = {
      // digraph paste: clang reads %:%: as ##
      {"#define CAT(a,b) a %:%: b\n", "void f() { CAT(__as,m__)" + kSyscall + " }\n"},
      {"%:define CAT(a,b) a%:%:b\n", "void f() { CAT(__as,m__)" + kSyscall + " }\n"},
      // GNU named variadic parameter
      {"#define CAT(a, b...) a ## b\n", "void f() { CAT(__as, m__)" + kSyscall + " }\n"},
      {"#define CAT(a, b ...) a##b\n", "void f() { CAT(__as, m__)" + kSyscall + " }\n"},
      // __VA_ARGS__ and __VA_OPT__
      {"#define CAT(a, ...) a ## __VA_ARGS__\n", "void f() { CAT(__as, m__)" + kSyscall + " }\n"},
      {"#define CAT(a, ...) __VA_OPT__(__as) ## a\n", "void f() { CAT(m__, 1)" + kSyscall + " }\n"},
      // a lone \r ends a // comment for clang
      {"", "void f() {\n  // note\r    __asm__" + kSyscall + "\n}\n"},
      {"", "void f() {\n  // note\r\n    __asm__" + kSyscall + "\n}\n"},
      // a comment across lines does not end the #define
      {"#define CAT(a, b) a /*\n*/ ## b\n", "void f() { CAT(__as, m__)" + kSyscall + " }\n"},
      // a Unicode space reads as a blank to clang
      {"", "void f() { asm\xC2\xA0" + kSyscall + " }\n"},
      // text that cannot be read with certainty
      {"", "void f() { int a = 1 \\ ; }\n"},
      {"#define S \"abc\n", ""},
      {"/* never closed\n", ""},
      {"", "void f() { as?\?/\nm" + kSyscall + " }\n"},
      {"", "int a$sm;\n"},
  };
  for (const auto& [head, tail] : tricks) {
    const std::string text = head + kBody + tail;
    INFO(text);
    const CheckedSource c = f.check(text);
    CHECK_THAT(c.problem, ContainsText("k.cl"));
    CHECK(c.source.empty());
    CHECK_THAT(find_inline_assembly(text, "k.cl"), ContainsText("k.cl, line "));
  }
}

TEST_CASE("includes spelled with digraphs, a lone CR or __has_include are refused unread", "[grade][source]") {
  const Folder f;
  const std::string secret = f.secret.string();
  const std::vector<std::pair<std::string, std::string>> tricks = {
      {"%:include \"" + secret + "\"\n", "absolute path"},
      {"%: include \"../secret.h\"\n", "'..'"},
      {"  %:  include <" + secret + ">\n", "absolute path"},
      {"// x\r#include \"" + secret + "\"\n", "absolute path"},
      {"// x\r%:include \"../secret.h\"\n", "'..'"},
      {"#include_next \"helper.h\"\n", "#include_next is not accepted"},
      {"#import \"helper.h\"\n", "#import is not accepted"},
      {"#if __has_include(\"" + secret + "\")\n#endif\n", "__has_include"},
      {"#if defined(__has_include_next) && __has_include_next(<x.h>)\n#endif\n", "__has_include_next"},
      {"#define H __has_ ## include\n#if H(\"" + secret + "\")\n#endif\n", "token paste"},
      {"/* x\n */ #include \"helper.h\"\n", "begin its own line"},
      {"#include \"helper.h\" int x;\n", "nothing after it"},
  };
  for (const auto& [head, why] : tricks) {
    const std::string text = head + kBody;
    INFO(text);
    const CheckedSource c = f.check(text);
    CHECK_THAT(c.problem, ContainsText(why) && !ContainsText("TOPSECRET"));
    CHECK(c.source.empty());
  }
  // A file of the student's own folder, however the line is spelled, is copied in.
  for (const char* spelling : {"%:include \"helper.h\"\n", "// x\r#include \"helper.h\"\r\n",
                                      "#inc\\\r\nlude \"helper.h\"\r"}) {
    INFO(spelling);
    const CheckedSource c = f.check(std::string(spelling) + kBody);
    CHECK(c.problem.empty());
    CHECK_THAT(c.source, ContainsText("#define W 3") && ContainsText("#line 1 \"helper.h\"") && !ContainsText("include"));
  }
}

TEST_CASE("line numbers in reasons count LF, CRLF and a lone CR alike", "[grade][source]") {
  INFO(conv::test::seed_note());
  std::mt19937 random(conv::test::run_seed());
  const std::string endings[] = {"\n", "\r\n", "\r"};
  std::string text;
  const int line = 3 + static_cast<int>(random() % 20);
  for (int i = 1; i < line; ++i) text += "// line " + std::to_string(i) + endings[random() % 3];
  text += "__asm__(\"\");" + endings[random() % 3] + kBody;
  CHECK_THAT(find_inline_assembly(text, "k.cl"), ContainsText("k.cl, line " + std::to_string(line) + ": inline assembly"));
}

TEST_CASE("every step's own kernel passes the source check, with any line endings", "[grade][source]") {
  INFO(conv::test::seed_note());
  std::mt19937 random(conv::test::run_seed());
  const std::string endings[] = {"\n", "\r\n", "\r"};
  const fs::path dir = fs::path(conv::test::scratch_dir()) / "steps";
  std::vector<std::pair<std::string, std::string>> kernels;
  for (const auto& step : conv::all_steps()) kernels.push_back({step->name(), step->embedded_source()});
  for (const auto& [name, source] : kernels) {
    const std::string ending = endings[random() % 3];
    INFO(name << " with line ends " << (ending == "\n" ? "\\n" : ending == "\r" ? "\\r" : "\\r\\n"));
    const fs::path file = dir / name / "convolve.cl";
    write_file(file, with_line_ends(source, ending));
    const CheckedSource c = check_source(file.string(), file.parent_path().string());
    CHECK(c.problem == "");
    CHECK_FALSE(c.source.empty());
  }
}

TEST_CASE("the preprocessor, where installed, is a second opinion on what the compiler gets", "[grade][source]") {
  if (preprocessor_path().empty()) {
    WARN("SKIPPED: no preprocessor installed: the reading of the text decides alone");
    return;
  }
  CHECK(preprocessed_assembly(kBody, "k.cl") == "");
  // What the reading refuses anyway, the preprocessor sees after expansion.
  CHECK_THAT(preprocessed_assembly("#define C(a, b) a##b\nvoid f() { C(__as, m__)(\"\"); }\n" + kBody, "k.cl"),
             ContainsText("k.cl: inline assembly after preprocessing (__asm__)"));
  CHECK_THAT(preprocessed_assembly("#ifdef UNROLL_ROWS\n#define S(x) x\nvoid f() { S(asm)(\"\"); }\n#endif\n" + kBody, "k.cl"),
             ContainsText("with the launchers' macros"));
  CHECK_THAT(preprocessed_assembly("#include \"not-there.h\"\n" + kBody, "k.cl"), ContainsText("could not follow"));
  // An #error for a missing macro is the build's to report, not a refusal.
  CHECK(preprocessed_assembly("#ifndef FILTER_WIDTH\n#error FILTER_WIDTH\n#endif\n" + kBody, "k.cl") == "");
}

TEST_CASE("a macro bomb ends the preprocessor quickly, with a reason", "[grade][source]") {
  if (preprocessor_path().empty()) {
    WARN("SKIPPED: no preprocessor installed: the reading of the text decides alone");
    return;
  }
  // 8^12 copies of one token, from a few lines.
  const std::string bomb = "#define F(x) x x x x x x x x\nint g = F(F(F(F(F(F(F(F(F(F(F(F(1))))))))))));\n";
  const auto start = std::chrono::steady_clock::now();
  const std::string why = preprocessed_assembly(bomb + kBody, "bomb.cl");
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  CHECK(seconds < 25);
  CHECK_THAT(why, ContainsText("bomb.cl: the preprocessor"));
  CHECK_THAT(why, ContainsText("on this submission") || ContainsText("larger than"));
  INFO(why);
  // As a submission: refused, so the verdict is forbidden.
  const fs::path dir = fs::path(conv::test::scratch_dir()) / "macro-bomb";
  write_file(dir / "bomb.cl", bomb + kBody);
  CHECK_THAT(check_source((dir / "bomb.cl").string(), "").problem, ContainsText("the preprocessor"));
}
