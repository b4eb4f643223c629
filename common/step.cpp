#include "common/step.hpp"

#include "common/errors.hpp"

namespace conv {

Row problem_row(const DeviceFacts& facts, const std::string& step, const std::string& variant,
                const Problem& problem) {
  Row row;
  stamp(row, facts);
  row.step = step;
  row.variant = variant;
  row.width = problem.out_width();
  row.height = problem.out_height();
  row.filter = problem.filter.name;
  row.filter_width = problem.filter.width;
  row.border = border_name(problem.border);
  return row;
}

Comparison Step::compare(const Image& output, const Problem& problem,
                         const Reference& reference) const {
  return compare_with_reference(output, reference, problem.filter.width);
}

std::string Step::source(const RunOptions& options) const {
  return options.kernel_source.empty() ? embedded_source() : options.kernel_source;
}

std::string Step::label(const RunOptions& options) const {
  return options.kernel_label.empty() ? name() : options.kernel_label;
}

std::string Step::variant(const RunOptions& options) const {
  auto all = variants();
  if (options.variant.empty()) return all.front();
  for (const auto& v : all)
    if (v == options.variant) return v;
  std::string list;
  for (const auto& v : all) list += (list.empty() ? "" : ", ") + v;
  throw UsageError("--variant: " + name() + " has no variant '" + options.variant +
                   "' (it has: " + list + ")");
}

std::string Step::setting(const RunOptions& options, const std::string& name) const {
  for (const auto& s : settings()) {
    if (s.name != name) continue;
    auto it = options.settings.find(name);
    if (it == options.settings.end() || it->second.empty()) return s.default_value;
    if (s.choices.empty()) return it->second;
    for (const auto& c : s.choices)
      if (c == it->second) return c;
    std::string list;
    for (const auto& c : s.choices) list += (list.empty() ? "" : ", ") + c;
    throw UsageError("--" + name + " must be one of " + list + ", not '" + it->second + "'");
  }
  throw UsageError(this->name() + " has no setting '" + name + "'");
}

std::string Step::describe(const RunOptions& options) const {
  std::string text = variant(options);
  for (const auto& s : settings()) {
    const std::string value = setting(options, s.name);
    if (value != s.default_value) text += " " + s.name + "=" + value;
  }
  for (const auto& [key, value] : options.settings) {
    bool known = false;
    for (const auto& s : settings()) known |= s.name == key;
    if (!known) throw UsageError(name() + " has no setting '" + key + "'");
  }
  return text;
}

}  // namespace conv
