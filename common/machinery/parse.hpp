// Small, strict parsers for command-line values. Each throws UsageError with
// a message that names the option and the offending text.
#pragma once
#include <string>
#include <vector>
#include <utility>

namespace conv {

// "640x480" -> {640, 480}; both parts positive integers no larger than max.
std::pair<int, int> parse_size(const std::string& text, const std::string& what,
                               int max = 1 << 16);

// "a,b,,c" -> {"a", "b", "c"}: a comma-separated list, empty items dropped.
std::vector<std::string> split_list(const std::string& text);
// "a,b" -> {"a", "b"}; an empty item ("a,,b", "a,", ",") is a UsageError
// naming `option`, since a dropped item would be a silent change of list.
std::vector<std::string> split_list(const std::string& text, const std::string& option);

// A whole positive decimal integer no larger than max.
int parse_positive_int(const std::string& text, const std::string& what, int max);

// The sizes a filter bank can have (the filter bank's (step6-bank), the volume's): OpenCL's
// vector widths 1, 2, 4, 8 and 16.
bool valid_bank_size(int bank);
// "1,4,16" -> {1, 4, 16}; UsageError naming --bank for anything else.
std::vector<int> parse_bank_list(const std::string& text);

// Every option text split at commas: "--steps 1,2 --steps 3" -> 1, 2, 3.
// UsageError naming `option` for an empty item ("4x4,,8x8").
std::vector<std::string> list_items(const std::vector<std::string>& texts, const std::string& option);

// A whole finite decimal number.
double parse_number(const std::string& text, const std::string& what);

}  // namespace conv
