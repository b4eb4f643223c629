// Step 8's search space (../tuning.hpp): the method (the lesson's passes
// or a candidate), the passes' kernels and blocks, the unrolled loop and
// the work-group, declared once; the documented defaults, one rule for
// every device; what rules a point out (the candidates' own limits:
// launch.cpp); and the step's side that comes from it.
#include "step8-separable/tuning.hpp"

#include <algorithm>

#include "common/core/errors.hpp"
#include "common/machinery/parse.hpp"
#include "common/machinery/settings.hpp"
#include "step8-separable/candidates/launch.hpp"

namespace conv {

namespace {

const std::vector<std::string> kMethods = {"passes", "fused", "fused-direct", "strip", "box"};

// The work-group of the defaults on every device: 256 work-items, as wide
// as a warp's row of float4s and more.
const char* const kDefaultGroup = "32x8";

// A rank-1 filter whose row weights are all one number and column weights
// too: a box. (The SVD of a box gives equal floats; a filter that merely
// looks like one is taken at its exact weights.)
bool equal_weights(const SeparableFilter& s) {
  auto all_one = [](const std::vector<float>& w) {
    return std::all_of(w.begin(), w.end(), [&](float x) { return x == w.front(); });
  };
  return s.rank == 1 && all_one(s.rows[0]) && all_one(s.columns[0]);
}

// The local memory of the lesson's passes: the row pass's tile (its group's
// outputs plus F - 1 columns, in whole float4s) and the column pass's (plus
// F - 1 rows); a pass without the tile needs none.
std::size_t row_tile_bytes(int F, std::pair<int, int> b, std::pair<int, int> wg) {
  return sizeof(float) * round_up(static_cast<std::size_t>(wg.first) * b.first + F - 1, 4) *
         (static_cast<std::size_t>(wg.second) * b.second);
}
std::size_t column_tile_bytes(int F, std::pair<int, int> b, std::pair<int, int> wg) {
  return sizeof(float) * static_cast<std::size_t>(wg.first) * b.first *
         (static_cast<std::size_t>(wg.second) * b.second + F - 1);
}

TuneProblem separable_problem(const SeparableFilter& terms) {
  TuneProblem p;
  p.size = terms.width;
  p.detail = equal_weights(terms) ? "box" : "rank=" + std::to_string(terms.rank);
  return p;
}

int problem_rank(const TuneProblem& problem) {
  if (problem.detail.rfind("rank=", 0) == 0) return std::max(1, std::atoi(problem.detail.c_str() + 5));
  return 1;  // a box
}

// The point a run uses: the options given, then the tuned winner, then the
// defaults. In prepare() the work-group is the run's own; in
// default_work_group() it is to be found.
Resolved resolve(const SeparableStep& step, const DeviceFacts& facts, const Filter& filter, const RunOptions& options,
                 bool with_work_group) {
  TunePoint given = given_values(step, step, options);
  if (!options.kernel_source.empty())  // a --kernel file stands for convolve: the passes with a tile
    for (const auto& [name, value] : TunePoint{{"method", "passes"}, {"rows", "tile"}, {"columns", "tile"}})
      given.emplace(name, value);
  if (with_work_group) given["wg"] = std::to_string(options.wg_x) + "x" + std::to_string(options.wg_y);
  Resolved r = resolve_point(step, facts, step.tune_problem(filter), given);
  // Over the device's local memory or work-group size, prepare()'s checks
  // name the limit; any other reason is a combination the kernels lack.
  if (!r.why.empty() && r.why.find("local memory") == std::string::npos && r.why.rfind("work-group", 0) != 0)
    throw UsageError(r.why);
  return r;
}

}  // namespace

std::pair<int, int> size_of(const TunePoint& point, const std::string& name) {
  return parse_size(point.at(name), "--" + name, 1 << 14);
}

std::string SeparableStep::tune_name() const { return CLCONV_STEP_NAME; }

std::vector<TuneParameter> SeparableStep::tune_parameters() const {
  const OptionCheck block = auto_or_block(32);
  return {{"method",
           "What runs: passes (the lesson: a row pass and a column pass per term, convolve with its tile), "
           "or a candidate (candidates/): fused (convolve_fused: both passes in one kernel, the rows in local "
           "memory), fused-direct (convolve_fused_direct: both in one kernel through the caches), strip "
           "(convolve_fused_strip: a work-group down a strip, its row sums in a ring), box (convolve_fused_box: "
           "a box filter only, adds only; its work-group WxH runs as one row of W*H)",
           kMethods,
           {"passes", "fused", "box"},
           one_of(kMethods),
           {"fused", "fused-direct", "strip"}},  // box: tests/separable_cases.cpp, on boxes
          {"rows",
           "The row pass's kernel (method passes): tile (convolve) or direct (convolve_direct, "
           "candidates/direct.cl: no tile, through the caches)",
           {"tile", "direct"},
           {"tile", "direct"},
           one_of({"tile", "direct"}),
           {"direct"}},
          {"columns",
           "The column pass's kernel (method passes): tile or direct",
           {"tile", "direct"},
           {"tile", "direct"},
           one_of({"tile", "direct"}),
           {"direct"}},
          {"block",
           "Outputs per work-item WxH, W a multiple of 4, of both passes or of a one-kernel candidate",
           {"4x1", "4x2", "4x4", "4x8", "4x16", "4x32", "8x1", "8x2", "8x4"},
           {"4x4", "4x16"},
           block,
           {"8x1", "4x8"}},
          {"unroll",
           "on or off: the loop over tile rows unrolled (-D UNROLL_ROWS)",
           {"on", "off"},
           {"on", "off"},
           one_of({"on", "off"}),
           {"off"}},
          {"batch",
           "Rows of column sums the box kernel keeps in local memory between its row passes (method box): "
           "32, 16 or 8 (fewer: less local memory and fewer registers, more barriers)",
           {"32", "16", "8"},
           {"32"},
           one_of({"32", "16", "8"}),
           {}},  // tests/separable_cases.cpp, with the box kernel
          {"strips",
           "Work-groups per compute unit the box kernel's strips are cut for (method box): 4, 2, 8 or 16 "
           "(more: shorter strips, more of them in flight, more halo rows read twice)",
           {"4", "2", "8", "16"},
           {"4"},
           one_of({"4", "2", "8", "16"}),
           {}}};  // tests/separable_cases.cpp, with the box kernel
}

std::vector<std::string> SeparableStep::tune_work_groups(const DeviceFacts&, const TuneProblem& problem) const {
  std::vector<std::string> groups = {kDefaultGroup, "32x4", "16x16", "64x4", "16x8", "8x8"};
  // The box kernel runs its work-group as one row, one work-item per
  // column of its strip: more sizes between.
  if (problem.detail == "box")
    for (const char* g : {"128x1", "192x1", "224x1", "320x1", "384x1"}) groups.push_back(g);
  return groups;
}

// One rule on every device: the passes with a tile, block 4x4 (its height
// halved while a tile does not fit; a pass whose tile does not fit at 4x1
// runs without it), the loop over tile rows unrolled, work-group 32x8.
TunePoint SeparableStep::tune_defaults(const DeviceFacts& facts, const TuneProblem& problem) const {
  const int F = static_cast<int>(problem.size);
  TunePoint p = {{"method", "passes"}, {"rows", "tile"},   {"columns", "tile"}, {"unroll", "on"},
                 {"batch", "32"},      {"strips", "4"}, {"wg", kDefaultGroup}};
  // Step 6's rule, for both passes' tiles (and a KiB to spare).
  const std::pair<int, int> wg = size_of(p, "wg");
  std::pair<int, int> b = {4, 4};
  auto fits = [&](std::size_t bytes) { return bytes + 1024 <= facts.local_mem_bytes; };
  while (b.second > 1 && !(fits(row_tile_bytes(F, b, wg)) && fits(column_tile_bytes(F, b, wg)))) b.second /= 2;
  p["block"] = std::to_string(b.first) + "x" + std::to_string(b.second);
  // A pass whose tile does not fit even so runs without it.
  if (!fits(row_tile_bytes(F, b, wg))) p["rows"] = "direct";
  if (!fits(column_tile_bytes(F, b, wg))) p["columns"] = "direct";
  return p;
}

// Over the device's work-group or local memory (the candidates': launch.cpp),
// a box kernel for what is not a box, a setting the method does not use
// away from the defaults' (one point per method, not duplicates).
std::string SeparableStep::tune_ruled_out(const DeviceFacts& facts, const TuneProblem& problem,
                                           const TunePoint& p) const {
  const int F = static_cast<int>(problem.size);
  std::pair<int, int> b, wg;
  try {
    b = size_of(p, "block"), wg = size_of(p, "wg");
  } catch (const std::exception& e) {
    return e.what();
  }
  const std::size_t items = static_cast<std::size_t>(wg.first) * wg.second;
  if (facts.max_work_group > 0 && items > facts.max_work_group)
    return "work-group " + p.at("wg") + " over the device's " + std::to_string(facts.max_work_group);
  const std::string& kernel = p.at("method");
  const TunePoint defaults = tune_defaults(facts, problem);
  if (kernel != "box" && (p.at("batch") != defaults.at("batch") || p.at("strips") != defaults.at("strips")))
    return "batch and strips are the box kernel's: with method " + kernel + " they stay " + defaults.at("batch") +
           " and " + defaults.at("strips");
  if (kernel != "passes") {
    for (const char* name : {"rows", "columns"})
      if (p.at(name) != defaults.at(name))
        return "method " + kernel + " runs both passes in one kernel: " + name + " stays " + defaults.at(name);
    if (kernel == "box" && problem.detail != "box")
      return "method box: the filter is not a box (rank 1, one row weight, one column weight)";
    if (kernel == "box" && (p.at("block") != defaults.at("block") || p.at("unroll") != defaults.at("unroll")))
      return "method box has no block of outputs and no loop over tile rows: block and unroll stay " +
             defaults.at("block") + " and " + defaults.at("unroll");
    return candidate_ruled_out(facts, kernel, F, problem_rank(problem), b, wg, std::stoi(p.at("batch")));
  }
  const std::size_t rows = p.at("rows") == "tile" ? row_tile_bytes(F, b, wg) : 0;
  const std::size_t columns = p.at("columns") == "tile" ? column_tile_bytes(F, b, wg) : 0;
  if (std::max(rows, columns) + 1024 > facts.local_mem_bytes)  // a KiB spare for the compiler's own
    return "a pass's tile, " + std::to_string(std::max(rows, columns)) + " bytes, over the local memory";
  return "";
}

TuneProblem SeparableStep::tune_problem(const Filter& filter) const { return separable_problem(separate(filter)); }

std::string SeparableStep::tune_filters() const { return "box:3,box:15,box:31,random:7"; }

std::string SeparableStep::tune_command(const TuneProblem& problem) const {
  const std::string F = std::to_string(problem.size);
  const std::string spec = problem.detail == "box"                   ? "box:" + F
                           : problem.detail == "rank=" + F           ? "random:" + F
                           : problem.detail == "rank=1"              ? "gaussian:" + F
                                                                     : "file:PATH (a filter of " + problem.detail + ")";
  return "build/bin/" + tune_name() + " --tune --filters " + spec;
}

std::vector<StepOption> SeparableStep::options() const {
  return tuned_options(tune_parameters(), ", or auto (the tuned winner, else the default; docs/step8-separable.md)");
}

std::pair<int, int> SeparableStep::default_work_group(const DeviceFacts& facts, const Filter& filter,
                                                      const RunOptions& options) const {
  return size_of(resolve(*this, facts, filter, options, false).point, "wg");
}

bool SeparableStep::builds_kernel_file(const RunOptions& options) const {
  const std::string method = option(options, "method");
  return (method == "auto" || method == "passes") && option(options, "rows") != "direct" &&
         option(options, "columns") != "direct";
}

Launch SeparableStep::prepare(DeviceContext& device, const Problem& problem, const RunOptions& options) {
  const SeparableFilter terms = separate(problem.filter);
  const Resolved resolved = resolve(*this, device.facts(), problem.filter, options, true);
  Launch launch = resolved.point.at("method") == "passes"
                      ? prepare_passes(device, problem, options, resolved.point, terms)
                      : launch_candidate(*this, device, problem, options, resolved.point, terms);
  launch.note = describe_work(terms) + "; " + point_text(*this, resolved.point) + " (" + resolved.origin + ")" +
                (launch.note.empty() ? "" : "; " + launch.note);
  return launch;
}

}  // namespace conv
