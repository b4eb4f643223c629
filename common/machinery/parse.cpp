#include "common/machinery/parse.hpp"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <sstream>

#include "common/core/errors.hpp"

namespace conv {

std::vector<std::string> split_list(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream s(text);
  std::string item;
  while (std::getline(s, item, ','))
    if (!item.empty()) out.push_back(item);
  return out;
}

std::vector<std::string> split_list(const std::string& text, const std::string& option) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (true) {
    const std::size_t comma = text.find(',', start);
    const std::string item = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    if (item.empty()) throw UsageError(option + ": an empty item in the list '" + text + "'");
    out.push_back(item);
    if (comma == std::string::npos) return out;
    start = comma + 1;
  }
}

int parse_positive_int(const std::string& text, const std::string& what, int max) {
  if (text.empty() || text.size() > 12)
    throw UsageError(what + ": '" + text + "' is not a positive integer");
  for (char c : text)
    if (c < '0' || c > '9') {
      throw UsageError(what + ": '" + text + "' is not a positive integer");
    }
  long long v = std::stoll(text);
  if (v <= 0) throw UsageError(what + ": must be positive, got " + text);
  if (v > max)
    throw UsageError(what + ": " + text + " is larger than the limit " + std::to_string(max));
  return static_cast<int>(v);
}

std::pair<int, int> parse_size(const std::string& text, const std::string& what, int max) {
  auto x = text.find_first_of("xX");
  if (x == std::string::npos)
    throw UsageError(what + ": expected WIDTHxHEIGHT (for example 16x16), got '" + text + "'");
  return {parse_positive_int(text.substr(0, x), what + " width", max),
          parse_positive_int(text.substr(x + 1), what + " height", max)};
}

double parse_number(const std::string& text, const std::string& what) {
  const char* begin = text.c_str();
  char* end = nullptr;
  errno = 0;
  double v = std::strtod(begin, &end);
  if (!text.empty() && end == begin + text.size() && errno == ERANGE && std::fabs(v) < 1)
    throw UsageError(what + ": '" + text + "' is too small for a double (below 2.2e-308)");
  if (text.empty() || end != begin + text.size() || errno == ERANGE || !std::isfinite(v))
    throw UsageError(what + ": '" + text + "' is not a finite number");
  return v;
}

bool valid_bank_size(int bank) {
  return bank == 1 || bank == 2 || bank == 4 || bank == 8 || bank == 16;
}

std::vector<int> parse_bank_list(const std::string& text) {
  std::vector<int> banks;
  for (const auto& item : split_list(text, "--bank")) {
    const int bank = parse_positive_int(item, "--bank", 16);
    if (!valid_bank_size(bank)) throw UsageError("--bank: 1, 2, 4, 8 or 16, not " + std::to_string(bank));
    banks.push_back(bank);
  }
  if (banks.empty()) throw UsageError("--bank: no bank size given");
  return banks;
}

std::vector<std::string> list_items(const std::vector<std::string>& texts, const std::string& option) {
  std::vector<std::string> items;
  for (const auto& text : texts)
    for (auto& item : split_list(text, option)) items.push_back(std::move(item));
  return items;
}

}  // namespace conv
