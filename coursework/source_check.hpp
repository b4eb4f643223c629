// What the grader reads in a submission before anything is built: its
// #include lines, which may only name files in the student's own folder
// (they are copied into the one source the case runner builds, so the
// compiler gets no include path at all), and inline assembly, which is
// refused however it is spelled, by a reading of the text as clang's
// preprocessor does and by the preprocessor itself where one is installed
// (docs/coursework.md, "Nothing outside the submission").
#pragma once
#include <string>

namespace conv::grade {

struct CheckedSource {
  std::string source;   // the kernel with its includes copied in: what is built
  std::string problem;  // "" when it may be built, else why not (verdict forbidden)
};

// `kernel_path` is the kernel; `root` the student's own folder, or "" for a
// submission that is one file in the class's folder (which may include
// nothing: that folder holds the other students' files). The text is read
// only from files inside `root`; no reason quotes any other file. Only
// #include of a file in quotes or <...> is followed; #include_next,
// #import, #embed and __has_include are refused.
CheckedSource check_source(const std::string& kernel_path, const std::string& root);

// "" when `path` is a regular file with one name, not followed through a
// symbolic link; else why it may not be built, in one line ("alice.cl: a
// hard link ..."): a hard link's other name may be a file outside the
// submission, and a FIFO or device would block or read what is not the
// student's. `shown` names the file in the answer.
std::string not_plain_file(const std::string& path, const std::string& shown);

// The first use of inline assembly in `text`, read as clang's preprocessor
// reads it (\n, \r\n and a lone \r end a line; line splices; comments;
// digraphs such as %: for #): an asm, __asm or __asm__ token in any branch
// or macro, a __has_include test, or a token paste (##, %:%:) that could
// make one of those from a macro's parameters; "" when there is none. Text
// that could be read in two ways (a trigraph, a stray backslash, a string or
// comment that is not closed, a character outside plain ASCII outside
// comments and strings) is refused too. `file` names the text in the answer
// ("alice.cl, line 12: ..."); #line directives in the text are followed.
std::string find_inline_assembly(const std::string& text, const std::string& file);

// The second opinion: the preprocessor the driver's compiler comes with
// (clang-15, which Debian's PoCL depends on; else clang; else cpp) run on
// `source` (includes already copied in) in a temporary folder, with no
// include path, under a time limit and an output cap: once without macros
// and once with the macros the steps' launchers define. The answer names
// inline assembly (or a failed #include) in what it produces, or is "".
// Where no preprocessor is installed it is "" and find_inline_assembly()
// decides alone.
std::string preprocessed_assembly(const std::string& source, const std::string& file);

// The preprocessor preprocessed_assembly() runs, or "" when none is installed.
std::string preprocessor_path();

// The text as the compiler's early phases see it: line breaks as \n,
// trigraphs replaced, line splices (a backslash before a line break) joined,
// comments blanked; line breaks are kept, so line numbers still hold.
std::string logical_text(const std::string& text);

}  // namespace conv::grade
