// The harness's tuner through step 7, and alone: the defaults of both
// kinds of device run correctly on this one; every point of the space is
// one the device allows and checks against the reference; a stored winner
// is found only for its own step, device, driver and problem, and the step
// says which configuration it ran and where it came from; the search
// stores only a winner that the re-timing confirms; the small search runs
// end to end.
#include "tests/catch.hpp"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <random>
#include <regex>
#include <set>
#include <sstream>

#include "common/machinery/device_choice.hpp"
#include "common/machinery/filter_specs.hpp"
#include "common/machinery/guard.hpp"
#include "common/machinery/program_cache.hpp"
#include "common/machinery/reference.hpp"
#include "common/machinery/report.hpp"
#include "common/machinery/settings.hpp"
#include "common/machinery/parse.hpp"
#include "common/machinery/tuner.hpp"
#include "common/machinery/tuning.hpp"
#include "tests/files.hpp"
#include "tests/process.hpp"
#include "tests/support.hpp"

using namespace conv;

namespace conv {
std::unique_ptr<Step> make_step7_tuned();
}

namespace {

using test::ScratchCache;

const Tunable& tunable(const Step& step) { return dynamic_cast<const Tunable&>(step); }

TuneProblem width(int F) {
  TuneProblem p;
  p.size = F;
  return p;
}

RunOptions options_of(const TunePoint& c) {
  RunOptions options;
  for (const auto& [name, value] : c)
    if (name != "wg") options.values[name] = value;
  std::tie(options.wg_x, options.wg_y) = parse_size(c.at("wg"), "wg", 1024);
  return options;
}

Comparison run_config(Step& step, const TunePoint& c, const Problem& problem) {
  const RunResult result = run_step(step, test::device(), problem, options_of(c), 0);
  return compare_with_reference(result.output, reference_correlate(problem.padded, problem.filter),
                                problem.filter.width);
}

DeviceFacts gpu_like(DeviceFacts facts) {
  facts.is_gpu = true;
  facts.local_mem_bytes = 48 * 1024;  // what OpenCL offers on NVIDIA's GPUs
  return facts;
}

}  // namespace


TEST_CASE("step7: the documented defaults of a CPU and of a GPU match the reference here", "[step7-tuned]") {
  std::mt19937 rng(test::run_seed() + 7);
  auto step = make_step7_tuned();
  for (bool gpu : {false, true}) {
    const DeviceFacts facts = gpu ? gpu_like(test::device().facts()) : test::device().facts();
    for (int F : {1, 2, 3, 5, 7, 8, 13, 15, 17, 31}) {
      // What the step resolves to here with nothing given and nothing stored.
      const Resolved r = resolve_point(tunable(*step), facts, width(F), {});
      REQUIRE(r.why.empty());
      REQUIRE(tunable(*step).tune_ruled_out(test::device().facts(), width(F), r.point).empty());
      const Problem problem =
          make_problem(test::random_image(131, 67, rng), test::random_filter(F, rng), Border::clamp);
      INFO((gpu ? "a GPU's" : "a CPU's") << " defaults at F = " << F << ": " << point_text(tunable(*step), r.point)
                                         << "; " << test::seed_note());
      const Comparison cmp = run_config(*step, r.point, problem);
      INFO(cmp.describe());
      CHECK(cmp.passed());
    }
  }
}

TEST_CASE("step7: the documented defaults follow the lesson's rules", "[step7-tuned]") {
  auto step = make_step7_tuned();
  const Tunable& t = tunable(*step);
  DeviceFacts cpu = test::device().facts();
  cpu.is_gpu = false;
  const DeviceFacts gpu = gpu_like(cpu);
  for (int F : {1, 3, 5, 15, 31, 63}) {
    INFO("F = " << F);
    const TunePoint g = t.tune_defaults(gpu, width(F)), c = t.tune_defaults(cpu, width(F));
    // A GPU: the same at every width.
    CHECK(point_text(t, g) == "weights=constant tile=off shape=rows copy=rows unroll=off block=4x4 wg=32x4");
    // A CPU: up to F = 3 the tile-less rows, unrolled; above, the tile and
    // 16-wide vectors, unrolled up to F = 31.
    if (F <= 3) {
      CHECK(point_text(t, c) == "weights=constant tile=off shape=rows copy=rows unroll=on block=4x4 wg=16x16");
    } else {
      CHECK(c.at("tile") == "on");
      CHECK(c.at("shape") == "vectors");
      CHECK(c.at("block") == "16x4");
      CHECK(c.at("unroll") == (F <= 31 ? "on" : "off"));
    }
  }
}

TEST_CASE("step7: the options come from the declared parameters", "[step7-tuned]") {
  auto step = make_step7_tuned();
  const auto parameters = tunable(*step).tune_parameters();
  const auto options = step->options();
  REQUIRE(options.size() == parameters.size());
  for (std::size_t i = 0; i < options.size(); ++i) {
    INFO(parameters[i].name);
    CHECK(options[i].name == parameters[i].name);
    CHECK(options[i].default_value == "auto");
    for (const auto& v : parameters[i].values) {
      if (options[i].choices.empty())
        CHECK(options[i].check(v).empty());
      else
        CHECK(std::find(options[i].choices.begin(), options[i].choices.end(), v) != options[i].choices.end());
    }
  }
}

TEST_CASE("step7: the search space holds only what the device allows, defaults first", "[step7-tuned]") {
  auto step = make_step7_tuned();
  const Tunable& t = tunable(*step);
  const DeviceFacts gpu = gpu_like(test::device().facts());
  for (int F : {3, 7, 31}) {
    const auto space = tune_space(t, gpu, width(F));
    REQUIRE(!space.empty());
    CHECK(space.front() == t.tune_defaults(gpu, width(F)));
    std::set<TunePoint> seen;
    for (const auto& c : space) {
      INFO(point_text(t, c));
      CHECK(t.tune_ruled_out(gpu, width(F), c).empty());
      CHECK(seen.insert(c).second);  // no point twice
      const auto [gx, gy] = parse_size(c.at("wg"), "wg", 1024);
      CHECK(gx * gy <= static_cast<int>(gpu.max_work_group ? gpu.max_work_group : 1024));
      if (c.at("tile") == "off") CHECK((c.at("shape") == "rows" && c.at("copy") == "rows"));
      if (c.at("shape") == "vectors") CHECK(c.at("block").rfind("12x", 0) != 0);
    }
    std::set<std::string> weights, tiles;
    for (const auto& c : space) weights.insert(c.at("weights")), tiles.insert(c.at("tile"));
    CHECK(weights == std::set<std::string>{"constant", "local", "inline"});
    CHECK(tiles == std::set<std::string>{"on", "off"});
    CHECK(space.size() > 100);
  }
  // A tile over the local memory is ruled out, and says why.
  TunePoint big = t.tune_defaults(gpu, width(31));
  big["tile"] = "on", big["block"] = "16x16", big["wg"] = "16x16";
  CHECK(t.tune_ruled_out(gpu, width(31), big).find("local memory") != std::string::npos);
  TunePoint odd = t.tune_defaults(gpu, width(3));
  odd["tile"] = "off", odd["shape"] = "vectors";
  CHECK(!t.tune_ruled_out(gpu, width(3), odd).empty());
  odd["shape"] = "rows", odd["weights"] = "local";  // the tile-less kernel reads local weights too
  CHECK(t.tune_ruled_out(gpu, width(3), odd).empty());
}

TEST_CASE("step7: every point of the small space checks against the reference", "[step7-tuned]") {
  std::mt19937 rng(test::run_seed() + 8);
  auto step = make_step7_tuned();
  const DeviceFacts& facts = test::device().facts();
  for (int F : {5}) {
    const Problem problem = make_problem(test::random_image(45, 29, rng), test::random_filter(F, rng), Border::zero);
    for (const auto& c : tune_space(tunable(*step), facts, width(F), true)) {
      INFO("F = " << F << ": " << point_text(tunable(*step), c) << "; " << test::seed_note());
      const Comparison cmp = run_config(*step, c, problem);
      INFO(cmp.describe());
      CHECK(cmp.passed());
    }
  }
}

TEST_CASE("tuner: a point's text reads back, and damaged text does not", "[tuner]") {
  auto step = make_step7_tuned();
  const Tunable& t = tunable(*step);
  TunePoint c = t.tune_defaults(test::device().facts(), width(5));
  c["weights"] = "inline", c["block"] = "8x10", c["wg"] = "32x4";
  const auto back = parse_tune_point(t, point_text(t, c));
  REQUIRE(back);
  CHECK(*back == c);
  for (const char* bad : {"", "weights=inline",
                          "weights=nowhere tile=on shape=rows copy=rows unroll=on block=4x4 wg=8x8",
                          "weights=local tile=on shape=rows copy=rows unroll=on block=4 wg=8x8",
                          "weights=local tile=on shape=rows copy=rows unroll=on block=4x4 wg=8x8 extra=1",
                          "weights=local tile=on shape=rows copy=rows unroll=on block=4x4 wg=8x-8",
                          "weights=local weights=local tile=on shape=rows copy=rows unroll=on block=4x4 wg=8x8"}) {
    INFO("'" << bad << "'");
    CHECK_FALSE(parse_tune_point(t, bad));
  }
  for (const char* problem : {"F=7", "F=15 box", "pixels=4194304", "F=3 rank=2"}) {
    const auto p = parse_tune_problem(problem);
    REQUIRE(p);
    CHECK(p->text() == problem);
  }
  for (const char* problem : {"", "F", "=7", "F=", "F=x", "F=-3", "F=99999999999999999999"})
    CHECK_FALSE(parse_tune_problem(problem));
}

TEST_CASE("tuner: a stored winner is found for its own step, device, driver and problem only", "[tuner]") {
  ScratchCache cache("store");
  auto step = make_step7_tuned();
  const Tunable& t = tunable(*step);
  DeviceFacts facts = test::device().facts();
  CHECK_FALSE(stored_winner(t, facts, width(5)));
  StoredWinner c{t.tune_defaults(facts, width(5)), 1.5, 2.0};
  c.point["block"] = "16x2";
  REQUIRE(store_winner(t, facts, width(5), c));
  REQUIRE(stored_winner(t, facts, width(5)));
  CHECK(stored_winner(t, facts, width(5))->point == c.point);
  CHECK(stored_winner(t, facts, width(5))->default_ms == 2.0);
  CHECK_FALSE(stored_winner(t, facts, width(7)));
  StoredWinner d = c;
  d.point["block"] = "16x1";
  REQUIRE(store_winner(t, facts, width(7), d));
  CHECK(stored_winner(t, facts, width(5))->point == c.point);  // replacing one problem keeps the others
  CHECK(stored_winner(t, facts, width(7))->point == d.point);
  DeviceFacts other = facts;
  other.driver += "-newer";
  CHECK_FALSE(stored_winner(t, other, width(5)));  // a new driver tunes afresh
  TuneProblem box = width(5);
  box.detail = "box";
  CHECK_FALSE(stored_winner(t, facts, box));  // another kind of problem
  // A damaged line is no winner, and the step falls back to its defaults.
  const std::string key = t.tune_name() + "\t" + facts.name + "\t" + facts.driver + "\t";
  const std::string kernels = kernels_fingerprint(t);
  test::write_scratch("store/clconv/tuned.txt", key + "F=5\tweights=nowhere\t1\t2\t" + kernels + "\n");
  CHECK_FALSE(stored_winner(t, facts, width(5)));
  CHECK(stale_winners(t, facts).empty());  // damaged, not stale
}

TEST_CASE("tuner: a winner timed on other kernels is stale: kept, not used, named, and replaced", "[tuner]") {
  ScratchCache cache("stale");
  auto step = make_step7_tuned();
  const Tunable& t = tunable(*step);
  const DeviceFacts facts = test::device().facts();
  const std::string kernels = kernels_fingerprint(t);
  CHECK(kernels.size() == 8 + 16);
  CHECK(kernels.rfind("kernels=", 0) == 0);
  // Another kernel source, another fingerprint.
  struct Other : Tunable {
    std::string text;
    std::string tune_name() const override { return "other"; }
    std::vector<TuneParameter> tune_parameters() const override { return {}; }
    std::vector<std::string> tune_work_groups(const DeviceFacts&, const TuneProblem&) const override { return {}; }
    TunePoint tune_defaults(const DeviceFacts&, const TuneProblem&) const override { return {}; }
    std::string tune_ruled_out(const DeviceFacts&, const TuneProblem&, const TunePoint&) const override { return ""; }
    std::string tune_kernels() const override { return text; }
  } a, b;
  a.text = "__kernel void k() {}";
  b.text = "__kernel void k() { }";
  CHECK(kernels_fingerprint(a) != kernels_fingerprint(b));

  TunePoint w = t.tune_defaults(facts, width(7));
  w["block"] = "16x2";
  const std::string key = t.tune_name() + "\t" + facts.name + "\t" + facts.driver + "\t";
  const std::string line = key + "F=7\t" + point_text(t, w) + "\t1\t2";
  // Timed on other kernels; or stored before fingerprints (no last field).
  for (const std::string& old : {line + "\tkernels=0123456789abcdef", line}) {
    INFO(old);
    test::write_file(tune_store_path(), old + "\n");
    CHECK_FALSE(stored_winner(t, facts, width(7)));
    CHECK(stale_winners(t, facts) == std::set<TuneProblem>{width(7)});
    const Resolved r = resolve_point(t, facts, width(7), {});
    CHECK(r.point == t.tune_defaults(facts, width(7)));
    CHECK_THAT(r.origin, ContainsText("documented defaults") &&
                             ContainsText("the winner stored for F=7 was timed on kernels changed since") &&
                             ContainsText("to tune F=7"));
    CHECK_THAT(resolve_point(t, facts, width(5), {}).origin, !ContainsText("changed since"));
  }
  // The same line with these kernels' fingerprint is the winner.
  test::write_file(tune_store_path(), line + "\t" + kernels + "\n");
  REQUIRE(stored_winner(t, facts, width(7)));
  CHECK(stored_winner(t, facts, width(7))->point == w);
  CHECK(stale_winners(t, facts).empty());
  // Tuning the problem again replaces the stale line.
  test::write_file(tune_store_path(), line + "\tkernels=0123456789abcdef\n");
  REQUIRE(store_winner(t, facts, width(7), {w, 1.0, 2.0}));
  const std::string store = test::read_text(tune_store_path());
  CHECK(std::count(store.begin(), store.end(), '\n') == 1);
  CHECK_THAT(store, ContainsText(kernels) && !ContainsText("0123456789abcdef"));
  CHECK(stale_winners(t, facts).empty());
}

TEST_CASE("tuner: values given win, the nearest runnable point fills in, and the origin says which", "[tuner]") {
  ScratchCache cache("resolve");
  auto step = make_step7_tuned();
  const Tunable& t = tunable(*step);
  const DeviceFacts facts = test::device().facts();
  // Nothing stored: the defaults, which widths are tuned, and the command.
  Resolved r = resolve_point(t, facts, width(7), {});
  CHECK(r.point == t.tune_defaults(facts, width(7)));
  CHECK(r.origin.find("documented defaults") != std::string::npos);
  CHECK(r.origin.find("tuned here: none") != std::string::npos);
  CHECK(r.origin.find("--tune --filters random:7") != std::string::npos);
  // A winner without the tile, stored for F = 7.
  TunePoint w = t.tune_defaults(facts, width(7));
  w["tile"] = "off", w["shape"] = "rows", w["block"] = "4x2", w["unroll"] = "off";
  REQUIRE(store_winner(t, facts, width(7), {w, 1.0, 2.0}));
  r = resolve_point(t, facts, width(7), {});
  CHECK(r.point == w);
  CHECK(r.origin.find("tuned winner") != std::string::npos);
  r = resolve_point(t, facts, width(5), {});
  CHECK(r.origin.find("tuned here: F=7") != std::string::npos);
  // A value given that the winner has: still the winner, not "given".
  r = resolve_point(t, facts, width(7), {{"weights", w.at("weights")}});
  CHECK(r.origin.rfind("tuned winner", 0) == 0);
  // A value given that differs: named as given.
  r = resolve_point(t, facts, width(7), {{"weights", "local"}});
  CHECK(r.point.at("weights") == "local");
  CHECK(r.origin.find("weights given") != std::string::npos);
  // Vectors need the tile: the nearest point with vectors brings it.
  r = resolve_point(t, facts, width(7), {{"shape", "vectors"}});
  CHECK(r.why.empty());
  CHECK(r.point.at("shape") == "vectors");
  CHECK(r.point.at("tile") == "on");
  CHECK(r.origin.find("tile=on") != std::string::npos);
  // What no point can have is the values' own problem.
  r = resolve_point(t, facts, width(7), {{"shape", "vectors"}, {"tile", "off"}});
  CHECK(!r.why.empty());
}

namespace {

// A space of one parameter whose search times and re-times are scripted:
// "fluke" looks fastest in the search but is no faster when re-timed;
// "real" is faster both times, by `gain`.
struct Scripted : Tunable {
  std::string tune_name() const override { return "scripted"; }
  std::vector<TuneParameter> tune_parameters() const override {
    return {{"kernel", "", {"base", "fluke", "real"}, {"base"}}};
  }
  std::vector<std::string> tune_work_groups(const DeviceFacts&, const TuneProblem&) const override { return {"8"}; }
  TunePoint tune_defaults(const DeviceFacts&, const TuneProblem&) const override {
    return {{"kernel", "base"}, {"wg", "8"}};
  }
  std::string tune_ruled_out(const DeviceFacts&, const TuneProblem&, const TunePoint&) const override { return ""; }
  std::string tune_kernels() const override { return "scripted"; }
};

SearchOutcome scripted_search(double real_gain, double jitter) {
  static Scripted tunable;
  SearchJob job;
  job.tunable = &tunable;
  job.problem = width(3);
  job.space = tune_space(tunable, DeviceFacts{}, job.problem);
  job.budget_s = 60;
  job.label = "scripted";
  // Each point's rounds take the factors 1 - jitter to 1 + jitter, evenly
  // spaced, in a random order: the spread is the one asked for, whatever
  // the seed, and so is the median (the verdict must not depend on luck).
  std::mt19937 rng(test::run_seed());
  std::map<TunePoint, std::vector<double>> factors;
  job.measure = [&](const TunePoint& p) {
    Measured m;
    m.ms = p.at("kernel") == "fluke" ? 0.5 : p.at("kernel") == "real" ? 1.0 / real_gain : 1.0;
    return m;
  };
  job.retime = [&](const TunePoint& p) {
    auto& left = factors[p];
    if (left.empty()) {
      for (int i = 0; i < job.retime_rounds; ++i)
        left.push_back(1 - jitter + 2 * jitter * i / (job.retime_rounds - 1));
      std::shuffle(left.begin(), left.end(), rng);
    }
    const double factor = left.back();
    left.pop_back();
    return (p.at("kernel") == "real" ? 1.0 / real_gain : 1.0) * factor;
  };
  return search(job);
}

}  // namespace

TEST_CASE("tuner: a fluke of the search is not stored, and a winner the re-timing confirms is", "[tuner]") {
  INFO(test::seed_note());
  // Only the fluke: it looked 2x faster once, and re-timed it is not.
  SearchOutcome o = scripted_search(1.0, 0.01);
  CHECK_FALSE(o.beats_defaults);
  CHECK(winner_to_store(o).point.at("kernel") == "base");
  CHECK(o.verdict.find("nothing beat the documented defaults") != std::string::npos);
  // A real 1.5x: stored, with its ratio.
  o = scripted_search(1.5, 0.01);
  CHECK(o.beats_defaults);
  CHECK(winner_to_store(o).point.at("kernel") == "real");
  CHECK(o.verdict.find("x the documented defaults'") != std::string::npos);
  // A machine whose rounds differ by +-40 %: too noisy to tell a 1.1x.
  o = scripted_search(1.1, 0.4);
  CHECK(winner_to_store(o).point.at("kernel") == "base");
  CHECK(o.verdict.find("too noisy to tell") != std::string::npos);
}

TEST_CASE("step7: the step runs the stored winner, and says which configuration it ran", "[step7-tuned][cli]") {
  ScratchCache cache("cli");
  auto step = make_step7_tuned();
  const Tunable& t = tunable(*step);
  const std::vector<std::string> args = {"--image", "synthetic:40x30", "--filter", "random:5", "--reps", "2",
                                         "--verify"};
  test::Outcome r = test::run_program("step7-tuned", args);
  INFO(r.err);
  REQUIRE(r.status == 0);
  CHECK(r.out.find("documented defaults") != std::string::npos);
  CHECK(r.out.find("step7-tuned --tune --filters random:5") != std::string::npos);  // how to tune it
  TunePoint c = t.tune_defaults(test::device().facts(), width(5));
  c["block"] = "16x2";
  c["unroll"] = c["unroll"] == "on" ? "off" : "on";
  REQUIRE(store_winner(t, test::device().facts(), width(5), {c, 1.0, 2.0}));
  r = test::run_program("step7-tuned", args);
  INFO(r.err);
  REQUIRE(r.status == 0);
  CHECK(r.out.find("tuned winner") != std::string::npos);
  CHECK(r.out.find(point_text(t, c)) != std::string::npos);
  // An option given explicitly wins over the stored winner's, and says so.
  auto with_block = args;
  with_block.insert(with_block.end(), {"--block", "4x1", "--shape", "rows"});
  r = test::run_program("step7-tuned", with_block);
  INFO(r.err);
  REQUIRE(r.status == 0);
  CHECK(r.out.find("block=4x1") != std::string::npos);
  CHECK(r.out.find("block, shape given") != std::string::npos);
}

TEST_CASE("step7: --tune tries the nearest tuned width's winner right after the defaults", "[step7-tuned][cli]") {
  ScratchCache cache("near");
  auto step = make_step7_tuned();
  const Tunable& t = tunable(*step);
  const DeviceFacts facts = test::device().facts();
  const std::vector<TunePoint> space = tune_space(t, facts, width(3), true);
  REQUIRE(space.size() > 2);
  const TunePoint far = space[1], near = space.back();  // not the defaults, nor the descent's first move
  REQUIRE(store_winner(t, facts, width(9), {far, 1.0, 1.0}));
  REQUIRE(store_winner(t, facts, width(5), {near, 1.0, 1.0}));
  const test::Outcome r = test::run_program(
      "step7-tuned", {"--tune", "--small", "--image", "synthetic:40x30", "--filter-widths", "3", "--budget", "120",
                      "--reps", "1", "--no-store", "--output", cache.path + "/all.csv"});
  INFO(r.err);
  REQUIRE(r.status == 0);
  std::istringstream all(test::read_text(cache.path + "/all.csv"));
  std::string header, first, second;
  std::getline(all, header), std::getline(all, first), std::getline(all, second);
  CHECK(first.find("," + point_text(t, space.front()) + ",") != std::string::npos);
  CHECK(second.find("," + point_text(t, near) + ",") != std::string::npos);
}

TEST_CASE("step7: --tune writes its CSV whole at the end, or not at all", "[step7-tuned][cli]") {
  ScratchCache cache("tune-output");
  const std::string old = cache.path + "/old.csv";
  test::write_file(old, "an older table\n");
  const std::vector<std::string> tune = {"--tune", "--small", "--image", "synthetic:40x30", "--filters",
                                         "random:3", "--budget", "5", "--reps", "1", "--no-store"};
  auto with = [&](std::vector<std::string> extra) {
    std::vector<std::string> args = tune;
    args.insert(args.end(), extra.begin(), extra.end());
    return args;
  };
  // A name that is not .csv, or a folder that does not exist: refused
  // before any work.
  test::Outcome r = test::run_program("step7-tuned", with({"--output", cache.path + "/t.png"}));
  CHECK(r.status == 2);
  CHECK_THAT(r.err, ContainsText(".csv"));
  CHECK_FALSE(test::file_exists(cache.path + "/t.png"));
  r = test::run_program("step7-tuned", with({"--output", cache.path + "/no/dir/t.csv"}));
  CHECK(r.status == 1);
  CHECK_THAT(r.err, ContainsText("does not exist"));
  // A run that fails (no such device) leaves the old file as it was.
  r = test::run_program("step7-tuned", with({"--output", old, "--device-type", "accelerator"}));
  CHECK(r.status != 0);
  CHECK(test::read_text(old) == "an older table\n");
  // A run that finishes replaces it whole.
  r = test::run_program("step7-tuned", with({"--output", old}));
  INFO(r.err);
  REQUIRE(r.status == 0);
  const std::string table = test::read_text(old);
  CHECK(table.rfind("device,driver,date,step,", 0) == 0);
  CHECK(std::count(table.begin(), table.end(), '\n') > 2);
}

TEST_CASE("step7: --tune searches a small space, checks, stores, and the next plain run uses it",
          "[step7-tuned][cli]") {
  ScratchCache cache("tune");
  auto step = make_step7_tuned();
  const Tunable& t = tunable(*step);
  const test::Outcome r = test::run_program(
      "step7-tuned", {"--tune", "--small", "--image", "synthetic:64x48", "--filters", "random:3", "--budget", "120",
                      "--reps", "2", "--output", cache.path + "/all.csv"});
  INFO(r.err);
  REQUIRE(r.status == 0);
  CHECK(r.err.find("tune step7-tuned F=3 [") != std::string::npos);  // the progress line
  CHECK(r.err.find("re-timed") != std::string::npos);                // the verdict
  // The progress never shows more seconds spent than the budget.
  const std::regex spent(R"(, (\d+) of (\d+) s,)");
  for (auto it = std::sregex_iterator(r.err.begin(), r.err.end(), spent); it != std::sregex_iterator(); ++it)
    CHECK(std::stoi((*it)[1]) <= std::stoi((*it)[2]));
  CHECK(r.out.find("step7-tuned") != std::string::npos);
  const auto stored = stored_winner(t, test::device().facts(), width(3));
  REQUIRE(stored);
  const std::string all = test::read_text(cache.path + "/all.csv");
  CHECK(std::count(all.begin(), all.end(), '\n') > 2);  // a header and a row per candidate
  // The next plain run at that width runs what was stored.
  const test::Outcome run =
      test::run_program("step7-tuned", {"--image", "synthetic:40x30", "--filter", "box:3", "--reps", "1"});
  INFO(run.out << run.err);
  REQUIRE(run.status == 0);
  CHECK(run.out.find(point_text(t, stored->point)) != std::string::npos);
  CHECK(run.out.find("documented defaults for") == std::string::npos);
  // Bad settings are one line and exit 2, before any work.
  for (const std::vector<std::string>& bad : {std::vector<std::string>{"--tune", "--filter-widths", "3,,5"},
                                              {"--tune", "--budget", "nan"},
                                              {"--tune", "--filter-widths", "200"},
                                              {"--tune", "--filters", "nonsense:3"}}) {
    const test::Outcome b = test::run_program("step7-tuned", bad);
    INFO(b.err);
    CHECK(b.status == 2);
    CHECK(b.err_lines() == 1);
  }
}

namespace conv {
std::unique_ptr<Step> make_step8_separable();
std::unique_ptr<Step> make_step10_fft_tiled();
}

TEST_CASE("steps 8 and 10: --tune stores a winner the next plain run uses, and an untuned problem says how to tune it",
          "[tuner][cli]") {
  ScratchCache cache("tune-8-10");
  struct Case {
    std::unique_ptr<Step> step;
    const char* tuned;    // the filter tuned
    const char* untuned;  // one of another problem
    const char* how;      // the command the untuned run names
  };
  Case cases[] = {{make_step8_separable(), "box:5", "box:7", "--tune --filters box:7"},
                  {make_step10_fft_tiled(), "random:5", "random:7", "--tune --filters random:7"}};
  for (Case& c : cases) {
    const std::string name = c.step->name();
    INFO(name);
    const Tunable& t = tunable(*c.step);
    const test::Outcome r = test::run_program(name, {"--tune", "--small", "--image", "synthetic:64x48", "--filters",
                                                     c.tuned, "--budget", "20", "--reps", "1"});
    INFO(r.err);
    REQUIRE(r.status == 0);
    const auto problem = t.tune_problem(parse_filter_spec(c.tuned));
    const auto stored = stored_winner(t, test::device().facts(), problem);
    REQUIRE(stored);
    const test::Outcome run =
        test::run_program(name, {"--image", "synthetic:40x30", "--filter", c.tuned, "--reps", "1", "--verify"});
    INFO(run.out << run.err);
    REQUIRE(run.status == 0);
    if (name == "step10-fft-tiled") {  // its note names the tile and the layout in words
      const std::string tile = stored->point.at("tile");
      CHECK(run.out.find("tile " + tile + "x" + tile) != std::string::npos);
      CHECK(run.out.find(stored->point.at("layout") + " layout") != std::string::npos);
    } else {
      CHECK(run.out.find(point_text(t, stored->point)) != std::string::npos);
    }
    CHECK((run.out.find("tuned winner") != std::string::npos ||
           run.out.find("kept by the tuner") != std::string::npos));
    const test::Outcome other =
        test::run_program(name, {"--image", "synthetic:40x30", "--filter", c.untuned, "--reps", "1"});
    INFO(other.out << other.err);
    REQUIRE(other.status == 0);
    CHECK(other.out.find("documented defaults") != std::string::npos);
    CHECK(other.out.find(std::string("build/bin/") + name + " " + c.how) != std::string::npos);
  }
}
