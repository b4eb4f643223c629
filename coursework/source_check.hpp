// What the grader reads in a submission before anything is built: its
// #include lines, which may only name files in the student's own folder
// (they are copied into the one source the case runner builds, so the
// compiler gets no include path at all), and inline assembly, which is
// refused however it is spelled (docs/coursework.md, "Nothing outside the
// submission").
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
// only from files inside `root`; no reason quotes any other file.
CheckedSource check_source(const std::string& kernel_path, const std::string& root);

// The first use of inline assembly in `text` (after trigraphs, line splices
// and comments): an asm, __asm or __asm__ token in any branch or macro, or a
// token paste (##) that could make one; "" when there is none. `file` names
// the text in the answer ("alice.cl, line 12: ..."); #line directives in
// the text are followed.
std::string find_inline_assembly(const std::string& text, const std::string& file);

// The text as the compiler's early phases see it: trigraphs replaced, line
// splices (a backslash before a line break) joined, comments blanked; line
// breaks are kept, so line numbers still hold.
std::string logical_text(const std::string& text);

}  // namespace conv::grade
