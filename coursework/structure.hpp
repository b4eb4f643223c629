// Structural checks: the step's idea, where a program can see it in the
// source. The conformance cases check results only, so step 2's body pasted
// into step 3's skeleton passes them all; these checks read the kernel's
// source (comments removed) for what the step is about. They are
// mechanical: they see whether the tile, the barrier, the float4 loads or
// the block are there, not whether they are used well.
#pragma once
#include <string>
#include <vector>

namespace conv::grade {

struct StructureCheck {
  std::string name;  // "barrier"
  std::string what;  // one line for --help and the docs
};

// The structural checks of a registered step, by its name; none for a step
// without any (its results are still checked).
std::vector<StructureCheck> structure_checks(const std::string& step_name);

// Each failed check of `step_name` on `source`, as "name: what is missing".
// A source without a kernel called `kernel_name` fails none: the cases
// report that.
std::vector<std::string> check_structure(const std::string& step_name, const std::string& source,
                                         const std::string& kernel_name = "convolve");

// The source with comments replaced by spaces (line breaks kept).
std::string strip_comments(const std::string& source);

}  // namespace conv::grade
