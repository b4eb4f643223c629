// A tunable step's declaration put to use: its options, its space, the
// store of winners and what a plain run resolves to (tuning.hpp).
#include "common/machinery/tuning.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <set>
#include <sstream>

#include "common/machinery/cache_dir.hpp"
#include "common/machinery/program_cache.hpp"

namespace conv {

std::string TuneProblem::text() const {
  return kind + "=" + std::to_string(size) + (detail.empty() ? "" : " " + detail);
}

std::optional<TuneProblem> parse_tune_problem(const std::string& text) {
  const auto eq = text.find('=');
  if (eq == std::string::npos || eq == 0) return std::nullopt;
  TuneProblem p;
  p.kind = text.substr(0, eq);
  const std::string rest = text.substr(eq + 1);
  const auto space = rest.find(' ');
  const std::string number = rest.substr(0, space);
  if (number.empty() || number.size() > 18 || number.find_first_not_of("0123456789") != std::string::npos)
    return std::nullopt;
  p.size = std::stoll(number);
  if (space != std::string::npos) p.detail = rest.substr(space + 1);
  return p;
}

TuneProblem Tunable::tune_problem(const Filter& filter) const {
  TuneProblem p;
  p.size = filter.width;
  return p;
}

std::string Tunable::tune_filters() const { return "random:3,random:7,random:15,random:31"; }

std::string Tunable::tune_command(const TuneProblem& problem) const {
  return "build/bin/" + tune_name() + " --tune --filters random:" + std::to_string(problem.size);
}

std::vector<StepOption> tuned_options(const std::vector<TuneParameter>& parameters, const std::string& auto_help) {
  std::vector<StepOption> options;
  for (const TuneParameter& p : parameters) {
    StepOption o;
    o.name = p.name;
    o.help = p.help + auto_help;
    o.default_value = "auto";
    o.used_by = p.used_by;
    if (!p.check) {
      o.choices = {"auto"};
      o.choices.insert(o.choices.end(), p.values.begin(), p.values.end());
    } else {
      o.test_values = p.test_values;
      const OptionCheck check = p.check;
      o.check = [check](const std::string& value) { return value == "auto" ? std::string() : check(value); };
    }
    options.push_back(std::move(o));
  }
  return options;
}

namespace {

// The names in the order point_text writes them: the parameters, then wg.
std::vector<std::string> point_names(const Tunable& tunable) {
  std::vector<std::string> names;
  for (const TuneParameter& p : tunable.tune_parameters()) names.push_back(p.name);
  names.push_back("wg");
  return names;
}

bool takes(const TuneParameter& p, const std::string& value) {
  if (std::find(p.values.begin(), p.values.end(), value) != p.values.end()) return true;
  return p.check && value != "auto" && p.check(value).empty();
}

bool work_group_text(const std::string& value) {
  // "N" or "WxH", each side 1..4096.
  int w = 0, h = 1;
  char x = 0, extra = 0;
  const int n = std::sscanf(value.c_str(), "%d%c%d%c", &w, &x, &h, &extra);
  if (n == 1) return w >= 1 && w <= 4096 && value.find_first_not_of("0123456789") == std::string::npos;
  return n == 3 && x == 'x' && w >= 1 && w <= 4096 && h >= 1 && h <= 4096 &&
         value.find_first_not_of("0123456789x") == std::string::npos;
}

}  // namespace

std::string point_text(const Tunable& tunable, const TunePoint& point) {
  std::string text;
  for (const std::string& name : point_names(tunable)) {
    const auto it = point.find(name);
    if (it == point.end()) continue;
    if (!text.empty()) text += " ";
    text += name + "=" + it->second;
  }
  return text;
}

std::optional<TunePoint> parse_tune_point(const Tunable& tunable, const std::string& text) {
  std::istringstream in(text);
  TunePoint point;
  for (std::string word; in >> word;) {
    const auto eq = word.find('=');
    if (eq == std::string::npos || !point.emplace(word.substr(0, eq), word.substr(eq + 1)).second)
      return std::nullopt;
  }
  const auto parameters = tunable.tune_parameters();
  if (point.size() != parameters.size() + 1 || !point.count("wg") || !work_group_text(point["wg"]))
    return std::nullopt;
  for (const TuneParameter& p : parameters)
    if (!point.count(p.name) || !takes(p, point[p.name])) return std::nullopt;
  return point;
}

std::vector<TunePoint> tune_space(const Tunable& tunable, const DeviceFacts& facts, const TuneProblem& problem,
                                  bool small) {
  const TunePoint base = tunable.tune_defaults(facts, problem);
  // Each dimension's values: the parameters', then the work-groups; the
  // defaults' own value always among them.
  std::vector<std::pair<std::string, std::vector<std::string>>> dims;
  for (const TuneParameter& p : tunable.tune_parameters()) {
    std::vector<std::string> values = small ? p.small : p.values;
    dims.emplace_back(p.name, values);
  }
  std::vector<std::string> groups = tunable.tune_work_groups(facts, problem);
  if (small && !groups.empty()) groups.resize(1);
  dims.emplace_back("wg", groups);
  for (auto& [name, values] : dims) {
    const std::string& own = base.at(name);
    values.erase(std::remove(values.begin(), values.end(), own), values.end());
    values.insert(values.begin(), own);
  }
  std::vector<TunePoint> space;
  std::set<TunePoint> seen;
  auto add = [&](const TunePoint& p) {
    if (seen.count(p) || !tunable.tune_ruled_out(facts, problem, p).empty()) return;
    seen.insert(p);
    space.push_back(p);
  };
  add(base);
  for (const auto& [name, values] : dims)
    for (const std::string& v : values) {
      TunePoint p = base;
      p[name] = v;
      add(p);
    }
  // The rest: every combination, odometer order (the last dimension fastest).
  std::vector<std::size_t> at(dims.size(), 0);
  for (;;) {
    TunePoint p;
    for (std::size_t d = 0; d < dims.size(); ++d) p[dims[d].first] = dims[d].second[at[d]];
    add(p);
    std::size_t d = dims.size();
    while (d > 0) {
      --d;
      if (++at[d] < dims[d].second.size()) break;
      at[d] = 0;
      if (d == 0) return space;
    }
    if (dims.empty()) return space;
  }
}

std::vector<TunePoint> descent_moves(const std::vector<TunePoint>& space, const TunePoint& centre,
                                     const std::string& parameter) {
  // For each other value of the parameter: the fewest other changes, and
  // the points that make only those.
  std::map<std::string, std::pair<int, std::vector<TunePoint>>> nearest;
  const std::string own = centre.count(parameter) ? centre.at(parameter) : "";
  for (const TunePoint& p : space) {
    const auto v = p.find(parameter);
    if (v == p.end() || v->second == own) continue;
    int others = 0;
    for (const auto& [name, value] : p) {
      if (name == parameter) continue;
      const auto c = centre.find(name);
      if (c == centre.end() || c->second != value) ++others;
    }
    auto [it, fresh] = nearest.emplace(v->second, std::make_pair(others, std::vector<TunePoint>{p}));
    if (fresh) continue;
    if (others < it->second.first) it->second = {others, {p}};
    else if (others == it->second.first) it->second.second.push_back(p);
  }
  std::vector<TunePoint> moves;
  for (const auto& [value, found] : nearest) moves.insert(moves.end(), found.second.begin(), found.second.end());
  return moves;
}

// ---- the store ----------------------------------------------------------------

namespace {

// Tabs separate the fields: device names have spaces. A line:
// step \t device \t driver \t problem \t point \t ms \t default ms \t kernels=...
// (the fingerprint last: tables that read the first seven columns of the
// committed copies, docs/results/tuned-*.txt, read both forms).
std::string device_key(const Tunable& tunable, const DeviceFacts& facts) {
  return tunable.tune_name() + "\t" + facts.name + "\t" + facts.driver + "\t";
}

std::vector<std::string> store_lines(const std::string& path) {
  std::vector<std::string> lines;
  if (path.empty() || !cache_entry_usable(path)) return lines;
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);)
    if (!line.empty()) lines.push_back(line);
  return lines;
}

std::vector<std::string> fields_of(const std::string& text) {
  std::vector<std::string> fields;
  std::size_t start = 0;
  for (;;) {
    const auto tab = text.find('\t', start);
    fields.push_back(text.substr(start, tab - start));
    if (tab == std::string::npos) return fields;
    start = tab + 1;
  }
}

// What a line that starts with `key` holds: its problem, and its winner when
// the line is whole and was timed on these kernels.
struct StoreLine {
  TuneProblem problem;
  std::optional<StoredWinner> winner;
  bool stale = false;  // timed on other kernels, or before fingerprints
};

// Nothing for a line of another key, or one too damaged to name its problem.
std::optional<StoreLine> read_line(const Tunable& tunable, const std::string& key, const std::string& kernels,
                                   const std::string& line) {
  if (line.rfind(key, 0) != 0) return std::nullopt;
  const auto fields = fields_of(line.substr(key.size()));
  const auto problem = parse_tune_problem(fields[0]);
  if (!problem) return std::nullopt;
  StoreLine read{*problem, std::nullopt, false};
  if (fields.size() == 4) read.stale = true;  // stored before fingerprints
  if (fields.size() != 5) return read;
  if (fields[4] != kernels) {
    read.stale = fields[4].rfind("kernels=", 0) == 0;  // timed on other kernels; else damaged
    return read;
  }
  const auto point = parse_tune_point(tunable, fields[1]);
  StoredWinner w;
  if (!point || std::sscanf(fields[2].c_str(), "%lf", &w.ms) != 1 ||
      std::sscanf(fields[3].c_str(), "%lf", &w.default_ms) != 1)
    return read;
  w.point = *point;
  read.winner = w;
  return read;
}

std::vector<StoreLine> read_store(const Tunable& tunable, const DeviceFacts& facts) {
  std::vector<StoreLine> out;
  const std::string key = device_key(tunable, facts);
  const std::string kernels = kernels_fingerprint(tunable);
  for (const auto& line : store_lines(tune_store_path()))
    if (auto read = read_line(tunable, key, kernels, line)) out.push_back(std::move(*read));
  return out;
}

std::string number_text(double x) {
  std::ostringstream out;
  out << x;
  return out.str();
}

}  // namespace

std::string tune_store_path() {
  const std::string dir = cache_dir("clconv");
  return dir.empty() ? "" : dir + "/tuned.txt";
}

std::string kernels_fingerprint(const Tunable& tunable) {
  std::uint64_t h = 14695981039346656037ull;
  for (const unsigned char c : tunable.tune_kernels()) h = (h ^ c) * 1099511628211ull;
  char text[32];
  std::snprintf(text, sizeof text, "kernels=%016llx", static_cast<unsigned long long>(h));
  return text;
}

std::map<TuneProblem, StoredWinner> stored_winners(const Tunable& tunable, const DeviceFacts& facts) {
  // Each problem's first whole, current line decides.
  std::map<TuneProblem, StoredWinner> out;
  for (const auto& read : read_store(tunable, facts))
    if (read.winner) out.emplace(read.problem, *read.winner);
  return out;
}

std::set<TuneProblem> stale_winners(const Tunable& tunable, const DeviceFacts& facts) {
  std::set<TuneProblem> stale, current;
  for (const auto& read : read_store(tunable, facts)) {
    if (read.stale) stale.insert(read.problem);
    if (read.winner) current.insert(read.problem);
  }
  for (const auto& problem : current) stale.erase(problem);
  return stale;
}

std::optional<StoredWinner> stored_winner(const Tunable& tunable, const DeviceFacts& facts,
                                          const TuneProblem& problem) {
  const auto all = stored_winners(tunable, facts);
  const auto it = all.find(problem);
  if (it == all.end()) return std::nullopt;
  return it->second;
}

bool store_winner(const Tunable& tunable, const DeviceFacts& facts, const TuneProblem& problem,
                  const StoredWinner& winner) {
  const std::string path = tune_store_path();
  if (path.empty()) return false;
  const std::string key = device_key(tunable, facts) + problem.text() + "\t";
  std::string text;
  for (const auto& line : store_lines(path))
    if (line.rfind(key, 0) != 0) text += line + "\n";
  text += key + point_text(tunable, winner.point) + "\t" + number_text(winner.ms) + "\t" +
          number_text(winner.default_ms) + "\t" + kernels_fingerprint(tunable) + "\n";
  return write_cache_file(path, std::vector<std::uint8_t>(text.begin(), text.end()));
}

// ---- what a run uses ----------------------------------------------------------

namespace {

std::string kind_of(const DeviceFacts& facts) { return facts.is_gpu ? "a GPU" : "a CPU"; }

// "F=3, F=5" or "none".
std::string tuned_list(const std::map<TuneProblem, StoredWinner>& all, const TuneProblem& like) {
  std::string text;
  for (const auto& [problem, winner] : all) {
    if (problem.kind != like.kind || problem.detail != like.detail) continue;
    text += (text.empty() ? "" : ", ") + problem.text();
  }
  return text.empty() ? "none" : text;
}

}  // namespace

Resolved resolve_point(const Tunable& tunable, const DeviceFacts& facts, const TuneProblem& problem,
                       const TunePoint& given) {
  const auto all = stored_winners(tunable, facts);
  const auto winner = all.find(problem);
  const bool tuned = winner != all.end();
  const TunePoint base = tuned ? winner->second.point : tunable.tune_defaults(facts, problem);
  std::string from;
  if (tuned && winner->second.point == tunable.tune_defaults(facts, problem)) {
    from = "documented defaults, kept by the tuner: nothing beat them here (" + tune_store_path() + ")";
  } else if (tuned) {
    from = "tuned winner in " + tune_store_path();
  } else {
    const bool stale = stale_winners(tunable, facts).count(problem) > 0;
    from = "documented defaults for " + kind_of(facts) + "; tuned here: " + tuned_list(all, problem) +
           (stale ? "; the winner stored for " + problem.text() + " was timed on kernels changed since" : "") +
           "; to tune " + problem.text() + ": " + tunable.tune_command(problem);
  }
  Resolved r;
  r.point = base;
  std::vector<std::string> changed;  // the values given that differ from the base's
  for (const auto& [name, value] : given) {
    const auto b = base.find(name);
    if (b != base.end() && b->second == value) continue;
    r.point[name] = value;
    changed.push_back(name);
  }
  auto origin = [&](const std::vector<std::string>& names, const std::string& rest) {
    if (names.empty()) return rest;
    std::string text;
    for (const auto& n : names) text += (text.empty() ? "" : ", ") + n;
    return text + " given, the rest " + rest;
  };
  const std::string why = tunable.tune_ruled_out(facts, problem, r.point);
  if (why.empty()) {
    r.origin = origin(changed, from);
    return r;
  }
  // The nearest point that keeps every value given: each point of the
  // space with the values given put in (a value the space does not search,
  // a work-group of the user's, is kept too), the fewest other changes.
  const auto space = tune_space(tunable, facts, problem, false);
  std::optional<TunePoint> best;
  int best_changes = 0;
  for (TunePoint p : space) {
    for (const auto& [name, value] : given) p[name] = value;
    int changes = 0;
    for (const auto& [name, value] : p)
      if (r.point.count(name) && r.point.at(name) != value) ++changes;
    if (best && changes >= best_changes) continue;
    if (!tunable.tune_ruled_out(facts, problem, p).empty()) continue;
    best = p, best_changes = changes;
  }
  if (best) {
    std::vector<std::string> moved;
    for (const auto& [name, value] : *best)
      if (r.point.count(name) && r.point.at(name) != value) moved.push_back(name + "=" + value);
    r.point = *best;
    std::string also;
    for (const auto& m : moved) also += (also.empty() ? "" : ", ") + m;
    r.origin = origin(changed, from) + "; " + also + " to go with them (" + why + ")";
    return r;
  }
  // No point has them: why not, said of the defaults with the values given
  // (the same whatever the store holds, so about the values given).
  TunePoint plain = tunable.tune_defaults(facts, problem);
  for (const auto& [name, value] : given) plain[name] = value;
  r.why = tunable.tune_ruled_out(facts, problem, plain);
  if (r.why.empty()) r.why = why;
  r.origin = origin(changed, from);
  return r;
}

TunePoint given_values(const Step& step, const Tunable& tunable, const RunOptions& options) {
  TunePoint given;
  for (const TuneParameter& p : tunable.tune_parameters()) {
    const std::string value = step.option(options, p.name);
    if (value != "auto") given[p.name] = value;
  }
  return given;
}

}  // namespace conv
