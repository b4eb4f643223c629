#pragma once
// The conformance suite's cases, by title. Each title names a test of
// build/bin/conformance_tests ("step3-local: 1919x1079") and a case of the
// grader (coursework/cases.cpp), and both derive a case's random seed from
// its title: one list, so that a student graded on a case meets the data
// the suite draws for it. tests/conformance.cpp and coursework/cases.cpp
// each pair these titles with their own runner, in this order.

namespace conv::conformance {

inline constexpr char kSmallSizes[] = "sizes 1x1, 3x2, 16x16, 17x33 x every filter width";
inline constexpr char kMediumSize[] = "600x400 x every filter width";
inline constexpr char kLargeSize[] = "1919x1079";
inline constexpr char kHugeSize[] = "4096x4096";
inline constexpr char kShapesAndBorders[] = "work-group shapes x borders";
inline constexpr char kImpulse[] = "an impulse reproduces the filter";
inline constexpr char kConstant[] = "a constant image gives the weight sum";

}  // namespace conv::conformance
