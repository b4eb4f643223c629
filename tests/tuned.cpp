// Step 7's search space, defaults, store and tuner: the defaults of both
// kinds of device run correctly on this one; every point of the space is
// one the device allows and checks against the reference; a stored winner
// is found only for its own device, driver and width, and the step says
// which configuration it ran; the tuner's small search runs end to end.
#include "tests/catch.hpp"

#include <cstdlib>
#include <filesystem>
#include <map>
#include <random>
#include <set>
#include <sstream>

#include "common/machinery/device_choice.hpp"
#include "common/machinery/guard.hpp"
#include "common/machinery/program_cache.hpp"
#include "common/machinery/reference.hpp"
#include "common/machinery/report.hpp"
#include "common/machinery/settings.hpp"
#include "step7-tuned/tuning.hpp"
#include "tests/files.hpp"
#include "tests/process.hpp"
#include "tests/support.hpp"

using namespace conv;

namespace conv {
std::unique_ptr<Step> make_step7_tuned();
}

namespace {

// XDG_CACHE_HOME pointed at a fresh folder for the scope: the store is
// empty, and the user's own is left alone.
struct ScratchCache {
  std::string old, path;
  bool had = false;
  explicit ScratchCache(const std::string& name) {
    if (const char* v = std::getenv("XDG_CACHE_HOME")) had = true, old = v;
    path = test::scratch_dir() + "/" + name;
    std::filesystem::create_directories(path + "/clconv");
    setenv("XDG_CACHE_HOME", path.c_str(), 1);
  }
  ~ScratchCache() {
    if (had)
      setenv("XDG_CACHE_HOME", old.c_str(), 1);
    else
      unsetenv("XDG_CACHE_HOME");
  }
};

Comparison run_config(const TunedConfig& c, const Problem& problem) {
  auto step = make_step7_tuned();
  RunOptions options;
  options.values = c.settings();
  options.wg_x = c.wg_x;
  options.wg_y = c.wg_y;
  const RunResult result = run_step(*step, test::device(), problem, options, 0);
  return compare_with_reference(result.output, reference_correlate(problem.padded, problem.filter),
                                problem.filter.width);
}

// A configuration's options by name, the work-group as "wg" among them.
std::map<std::string, std::string> with_wg(const TunedConfig& c) {
  auto s = c.settings();
  s["wg"] = std::to_string(c.wg_x) + "x" + std::to_string(c.wg_y);
  return s;
}

DeviceFacts gpu_like(DeviceFacts facts) {
  facts.is_gpu = true;
  facts.local_mem_bytes = 48 * 1024;  // what OpenCL offers on NVIDIA's GPUs
  return facts;
}

}  // namespace

TEST_CASE("step7: the documented defaults of a CPU and of a GPU match the reference here", "[step7-tuned]") {
  std::mt19937 rng(test::run_seed() + 7);
  for (bool gpu : {false, true}) {
    const DeviceFacts facts = gpu ? gpu_like(test::device().facts()) : test::device().facts();
    for (int width : {1, 2, 3, 5, 7, 8, 13, 15, 17, 31}) {
      TunedConfig c = documented_defaults(facts, width);
      while (c.block_y > 1 && !ruled_out(facts, width, c).empty()) c.block_y /= 2;  // as the step does
      REQUIRE(ruled_out(facts, width, c).empty());
      const Problem problem =
          make_problem(test::random_image(131, 67, rng), test::random_filter(width, rng), Border::clamp);
      INFO((gpu ? "a GPU's" : "a CPU's") << " defaults at F = " << width << ": " << c.text() << "; "
                                         << test::seed_note());
      const Comparison cmp = run_config(c, problem);
      INFO(cmp.describe());
      CHECK(cmp.passed());
    }
  }
}

TEST_CASE("step7: the documented defaults follow the lesson's rules", "[step7-tuned]") {
  DeviceFacts cpu = test::device().facts();
  cpu.is_gpu = false;
  const DeviceFacts gpu = gpu_like(cpu);
  for (int width : {1, 3, 5, 15, 31, 63}) {
    INFO("F = " << width);
    const TunedConfig g = documented_defaults(gpu, width), c = documented_defaults(cpu, width);
    // A GPU: the same at every width.
    CHECK(g.text() == "weights=constant tile=off shape=rows copy=rows unroll=off block=4x4 wg=32x4");
    // A CPU: up to F = 3 the tile-less rows, unrolled; above, the tile and
    // 16-wide vectors, unrolled up to F = 31.
    if (width <= 3) {
      CHECK(c.text() == "weights=constant tile=off shape=rows copy=rows unroll=on block=4x4 wg=16x16");
    } else {
      CHECK(c.tile == "on");
      CHECK(c.shape == "vectors");
      CHECK(c.block_x == 16);
      CHECK(c.block_y == 4);
      CHECK(c.unroll == (width <= 31 ? "on" : "off"));
    }
  }
}

TEST_CASE("step7: the search space holds only what the device allows, defaults first", "[step7-tuned]") {
  const DeviceFacts gpu = gpu_like(test::device().facts());
  for (int width : {3, 7, 31}) {
    const auto space = search_space(gpu, width);
    REQUIRE(!space.empty());
    CHECK(space.front() == documented_defaults(gpu, width));
    std::set<std::string> seen;
    for (const auto& c : space) {
      INFO(c.text());
      CHECK(ruled_out(gpu, width, c).empty());
      CHECK(seen.insert(c.text()).second);  // no configuration twice
      CHECK(c.wg_x * c.wg_y <= static_cast<int>(gpu.max_work_group ? gpu.max_work_group : 1024));
      if (c.tile == "off") CHECK((c.shape == "rows" && c.copy == "rows"));
      if (c.shape == "vectors") CHECK((c.block_x == 4 || c.block_x == 8 || c.block_x == 16));
    }
    // Every structure is there, and the wider search too.
    std::set<std::string> weights, tiles;
    for (const auto& c : space) weights.insert(c.weights), tiles.insert(c.tile);
    CHECK(weights == std::set<std::string>{"constant", "local", "inline"});
    CHECK(tiles == std::set<std::string>{"on", "off"});
    CHECK(space.size() > 100);
  }
  // A tile over the local memory is ruled out, and says why.
  TunedConfig big;
  big.block_x = 16, big.block_y = 16, big.wg_x = 16, big.wg_y = 16;
  CHECK(ruled_out(gpu, 31, big).find("local memory") != std::string::npos);
  TunedConfig odd;
  odd.tile = "off", odd.shape = "vectors";
  CHECK(!ruled_out(gpu, 3, odd).empty());
  odd.shape = "rows", odd.weights = "local";  // the tile-less kernel reads local weights too
  CHECK(ruled_out(gpu, 3, odd).empty());
}

TEST_CASE("step7: every point of the small space checks against the reference", "[step7-tuned]") {
  std::mt19937 rng(test::run_seed() + 8);
  const DeviceFacts& facts = test::device().facts();
  for (int width : {5}) {
    const Problem problem =
        make_problem(test::random_image(45, 29, rng), test::random_filter(width, rng), Border::zero);
    for (const auto& c : search_space(facts, width, true)) {
      INFO("F = " << width << ": " << c.text() << "; " << test::seed_note());
      const Comparison cmp = run_config(c, problem);
      INFO(cmp.describe());
      CHECK(cmp.passed());
    }
  }
}

TEST_CASE("step7: a configuration's text reads back; damaged text does not", "[step7-tuned]") {
  TunedConfig c;
  c.weights = "inline", c.tile = "off", c.unroll = "on", c.block_x = 8, c.block_y = 10, c.wg_x = 32, c.wg_y = 4;
  const auto back = parse_tuned_config(c.text());
  REQUIRE(back);
  CHECK(*back == c);
  for (const char* bad : {"", "weights=inline", "weights=nowhere tile=on shape=rows copy=rows unroll=on block=4x4 wg=8x8",
                          "weights=local tile=on shape=rows copy=rows unroll=on block=4 wg=8x8",
                          "weights=local tile=on shape=rows copy=rows unroll=on block=4x4 wg=8x8 extra"}) {
    INFO("'" << bad << "'");
    CHECK_FALSE(parse_tuned_config(bad));
  }
}

TEST_CASE("step7: a stored winner is found for its own device, driver and width only", "[step7-tuned]") {
  ScratchCache cache("store");
  DeviceFacts facts = test::device().facts();
  CHECK_FALSE(stored_winner(facts, 5));
  TunedConfig c = documented_defaults(facts, 5);
  c.block_y = 2;
  REQUIRE(store_winner(facts, 5, c, 1.5));
  REQUIRE(stored_winner(facts, 5));
  CHECK(*stored_winner(facts, 5) == c);
  CHECK_FALSE(stored_winner(facts, 7));
  TunedConfig d = c;
  d.block_y = 1;
  REQUIRE(store_winner(facts, 7, d, 2.0));
  CHECK(*stored_winner(facts, 5) == c);  // replacing one width keeps the others
  CHECK(*stored_winner(facts, 7) == d);
  DeviceFacts other = facts;
  other.driver += "-newer";
  CHECK_FALSE(stored_winner(other, 5));  // a new driver tunes afresh
  // A damaged line is no winner, and the step falls back to its defaults.
  test::write_scratch("store/clconv/tuned-step7.txt",
                      facts.name + "\t" + facts.driver + "\t5\tweights=nowhere\t1 ms\n");
  CHECK_FALSE(stored_winner(facts, 5));
}

TEST_CASE("step7: the step runs the stored winner, and says which configuration it ran", "[step7-tuned][cli]") {
  ScratchCache cache("cli");
  const std::vector<std::string> args = {"--image", "synthetic:40x30", "--filter", "random:5", "--reps", "2",
                                         "--verify"};
  test::Outcome r = test::run_program("step7-tuned", args);
  INFO(r.err);
  REQUIRE(r.status == 0);
  CHECK(r.out.find("documented defaults") != std::string::npos);
  TunedConfig c = documented_defaults(test::device().facts(), 5);
  c.block_y = 2;
  c.unroll = c.unroll == "on" ? "off" : "on";
  REQUIRE(store_winner(test::device().facts(), 5, c, 1.0));
  r = test::run_program("step7-tuned", args);
  INFO(r.err);
  REQUIRE(r.status == 0);
  CHECK(r.out.find("tuned winner") != std::string::npos);
  CHECK(r.out.find(c.text()) != std::string::npos);
  // An option given explicitly wins over the stored winner's.
  auto with_block = args;
  with_block.insert(with_block.end(), {"--block", "4x1"});
  r = test::run_program("step7-tuned", with_block);
  INFO(r.err);
  REQUIRE(r.status == 0);
  CHECK(r.out.find("block=4x1") != std::string::npos);
}

TEST_CASE("step7: an option only the tile has brings the tile to a winner without it", "[step7-tuned][cli]") {
  // A GPU's defaults and winners read without the tile; a stored winner
  // without it stands in for them on this device.
  ScratchCache cache("tileless");
  TunedConfig c = documented_defaults(test::device().facts(), 5);
  c.tile = "off", c.shape = "rows", c.copy = "rows", c.block_x = 4;
  REQUIRE(store_winner(test::device().facts(), 5, c, 1.0));
  for (const std::vector<std::string>& given : {std::vector<std::string>{"--shape", "vectors"},
                                                {"--copy", "flat"},
                                                {"--weights", "local"}}) {
    std::vector<std::string> args = {"--image", "synthetic:40x30", "--filter", "random:5", "--reps", "1", "--verify"};
    args.insert(args.end(), given.begin(), given.end());
    const test::Outcome r = test::run_program("step7-tuned", args);
    INFO(given[0] << " " << given[1] << "\n" << r.out << r.err);
    REQUIRE(r.status == 0);
    CHECK(r.out.find(given[0].substr(2) + "=" + given[1]) != std::string::npos);
    CHECK(r.out.find(given[1] == "local" ? "tile=off" : "tile=on") != std::string::npos);
    CHECK(r.out.find("tuned winner") != std::string::npos);  // the winner's other choices kept
    CHECK(r.out.find("block=4x") != std::string::npos);
  }
}

TEST_CASE("step7: the descent moves one parameter, and takes along what a value forces", "[step7-tuned]") {
  for (bool gpu : {false, true}) {
    const DeviceFacts facts = gpu ? gpu_like(test::device().facts()) : test::device().facts();
    const std::vector<TunedConfig> space = search_space(facts, 5);
    const TunedConfig centre = space.front();
    INFO((gpu ? "a GPU's" : "a CPU's") << " defaults: " << centre.text());
    for (const std::string parameter : {"weights", "tile", "shape", "copy", "unroll", "block", "wg"}) {
      const std::vector<TunedConfig> moves = descent_moves(space, centre, parameter);
      INFO(parameter);
      std::set<std::string> values;
      const auto from = with_wg(centre);
      for (const auto& c : moves) {
        const auto to = with_wg(c);
        REQUIRE(to.at(parameter) != from.at(parameter));
        values.insert(to.at(parameter));
        int others = 0;
        for (const auto& [name, value] : to) others += name != parameter && value != from.at(name);
        // The weights, unrolling, block and work-group move alone; the
        // tile-less kernel has the rows shape and no copy, so a move to it
        // brings the rows shape along, and a move to vectors or a flat copy
        // brings the tile.
        const bool forces = parameter == "tile" || parameter == "shape" || parameter == "copy";
        CHECK(others <= (forces ? 1 : 0));
        CHECK(std::find(space.begin(), space.end(), c) != space.end());
      }
      // Every value the space holds for this parameter is reached.
      std::set<std::string> all;
      for (const auto& c : space) {
        const auto to = with_wg(c);
        if (to.at(parameter) != from.at(parameter)) all.insert(to.at(parameter));
      }
      CHECK(values == all);
    }
    // From a CPU's defaults (tile, vectors) the tile-less kernel is one move.
    if (!gpu) {
      const auto moves = descent_moves(space, centre, "tile");
      REQUIRE(!moves.empty());
      CHECK(moves.front().tile == "off");
      CHECK(moves.front().shape == "rows");
    }
  }
}

TEST_CASE("step7: --tune tries the nearest tuned width's winner right after the defaults", "[step7-tuned][cli]") {
  ScratchCache cache("near");
  const DeviceFacts facts = test::device().facts();
  const std::vector<TunedConfig> space = search_space(facts, 3, true);
  REQUIRE(space.size() > 2);
  const TunedConfig far = space[1], near = space.back();  // not the defaults, nor the descent's first move
  REQUIRE(store_winner(facts, 9, far, 1.0));
  REQUIRE(store_winner(facts, 5, near, 1.0));
  const test::Outcome r = test::run_program(
      "step7-tuned", {"--tune", "--small", "--image", "synthetic:40x30", "--filter-widths", "3", "--budget", "120",
                      "--reps", "1", "--no-store", "--output", cache.path + "/all.csv"});
  INFO(r.err);
  REQUIRE(r.status == 0);
  std::istringstream all(test::read_text(cache.path + "/all.csv"));
  std::string header, first, second;
  std::getline(all, header), std::getline(all, first), std::getline(all, second);
  CHECK(first.find("," + space.front().text() + ",") != std::string::npos);
  CHECK(second.find("," + near.text() + ",") != std::string::npos);
}

TEST_CASE("step7: --tune searches a small space, checks, stores, and reports", "[step7-tuned][cli]") {
  ScratchCache cache("tune");
  const test::Outcome r = test::run_program(
      "step7-tuned", {"--tune", "--small", "--image", "synthetic:64x48", "--filter-widths", "3", "--budget", "120",
                      "--reps", "2", "--output", cache.path + "/all.csv"});
  INFO(r.err);
  REQUIRE(r.status == 0);
  CHECK(r.err.find("tune F=3 [") != std::string::npos);  // the progress line
  CHECK(r.out.find("step7-tuned") != std::string::npos);
  REQUIRE(stored_winner(test::device().facts(), 3));
  const std::string all = test::read_text(cache.path + "/all.csv");
  CHECK(std::count(all.begin(), all.end(), '\n') > 2);  // a header and a row per candidate
  // Bad settings are one line and exit 2, before any work.
  for (const std::vector<std::string>& bad : {std::vector<std::string>{"--tune", "--filter-widths", "3,,5"},
                                              {"--tune", "--budget", "nan"},
                                              {"--tune", "--filter-widths", "64"}}) {
    const test::Outcome b = test::run_program("step7-tuned", bad);
    INFO(b.err);
    CHECK(b.status == 2);
    CHECK(b.err_lines() == 1);
  }
}
