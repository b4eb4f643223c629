// Step 10's host-side arithmetic (step10-fft-tiled/tile.hpp): the filter's
// spectrum against a direct 2D DFT, the twiddles, the documented default
// tile (candidates/default_tile.hpp) and what rules a point of the search
// space out, and the error bound against what every kernel (the lesson's
// and the candidates') does on this device.
#include "tests/catch.hpp"

#include <cmath>
#include <complex>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <random>
#include <set>
#include <sstream>

#include "common/machinery/device_choice.hpp"
#include "common/machinery/guard.hpp"
#include "common/machinery/parse.hpp"
#include "common/machinery/program_cache.hpp"
#include "common/machinery/reference.hpp"
#include "common/machinery/report.hpp"
#include "common/machinery/settings.hpp"
#include "common/machinery/tuning.hpp"
#include "step10-fft-tiled/candidates/default_tile.hpp"
#include "step10-fft-tiled/tile.hpp"
#include "tests/files.hpp"
#include "tests/support.hpp"

using namespace conv;

namespace conv {
std::unique_ptr<Step> make_step10_fft_tiled();
}

TEST_CASE("step 10's filter spectrum is conj(DFT(K)) / N^2 of K in the corner of an N x N zero array",
          "[step10][units]") {
  std::mt19937 rng(test::run_seed());
  for (int N : {16, 32}) {
    const Filter filter = test::random_filter(5, rng);
    const std::vector<float> got = filter_spectrum(filter, N);
    REQUIRE(got.size() == 2u * N * N);
    const double tau = 2 * std::acos(-1.0);
    double worst = 0;
    for (int v = 0; v < N; ++v)
      for (int u = 0; u < N; ++u) {
        std::complex<double> s = 0;  // the 2D DFT, term by term
        for (int j = 0; j < filter.width; ++j)
          for (int i = 0; i < filter.width; ++i)
            s += static_cast<double>(filter.at(j, i)) * std::polar(1.0, -tau * (u * i + v * j) / N);
        s = std::conj(s) / static_cast<double>(N * N);
        const std::size_t at = 2 * (static_cast<std::size_t>(v) * N + u);
        worst = std::max(worst, std::abs(s - std::complex<double>(got[at], got[at + 1])));
      }
    INFO("N = " << N << "; " << test::seed_note());
    CHECK(worst < 1e-8);
  }
}

TEST_CASE("step 10's twiddles are exp(-2 pi i j / N) for j < N / 2, or as many as asked", "[step10][units]") {
  for (int count : {0, 64}) {
    const std::vector<float> w = twiddles(64, count);
    const int expected = count ? count : 32;
    REQUIRE(w.size() == 2u * expected);
    for (int j = 0; j < expected; ++j) {
      const double angle = -2 * std::acos(-1.0) * j / 64;
      CHECK(std::fabs(w[2 * j] - std::cos(angle)) < 1e-7);
      CHECK(std::fabs(w[2 * j + 1] - std::sin(angle)) < 1e-7);
    }
  }
}

TEST_CASE("step 10's default tile has the fewest flops per output of those that fit, whole or else split",
          "[step10][units]") {
  const std::uint64_t gpu = 48 * 1024, roomy = 4 * 1024 * 1024;
  // A GPU's 48 KiB hold the 64-point tile whole (37 KiB with its padding),
  // and the 128-point one only split in four (its sub-tiles 64 points).
  CHECK(tile_local_bytes(64) <= gpu);
  CHECK(tile_local_bytes(128) > gpu);
  CHECK(default_tile(7, gpu).tile == 64);
  CHECK_FALSE(default_tile(7, gpu).split);
  CHECK(default_tile(15, gpu).tile == 128);
  CHECK(default_tile(15, gpu).split);
  CHECK(default_tile(63, gpu).tile == 128);
  CHECK(default_tile(128, gpu).tile == 128);
  CHECK(default_tile(129, gpu).tile == 0);  // no tile that fits is that wide
  // With room for every tile whole (PoCL), the flops alone: 16 points for
  // the narrowest filters, 256 for the widest.
  CHECK(default_tile(3, roomy).tile == 16);
  CHECK(default_tile(7, roomy).tile == 64);
  CHECK(default_tile(63, roomy).tile == 256);
  CHECK_FALSE(default_tile(63, roomy).split);
  for (auto device : {gpu, roomy})
    for (int F = 1; F <= 128; ++F) {
      const DefaultTile d = default_tile(F, device);
      INFO("F = " << F << ", N = " << d.tile << ", local memory " << device);
      REQUIRE(d.tile >= F);
      CHECK(d.split == (tile_local_bytes(d.tile) > device));
      CHECK(tile_local_bytes(d.split ? d.tile / 2 : d.tile) <= device);
      for (int other : kTileSizes) {
        const bool fits = tile_local_bytes(other) <= device || (other >= 32 && tile_local_bytes(other / 2) <= device);
        if (other >= F && fits) CHECK(tile_flops_per_output(d.tile, F) <= tile_flops_per_output(other, F));
      }
    }
  CHECK(std::isinf(tile_flops_per_output(32, 33)));
}

TEST_CASE("step 10's search space: one default rule for every device, and what rules a point out",
          "[step10][units]") {
  auto step = make_step10_fft_tiled();
  const auto& tunable = dynamic_cast<const Tunable&>(*step);
  DeviceFacts gpu, cpu;
  gpu.is_gpu = true;
  gpu.local_mem_bytes = 48 * 1024;
  gpu.max_work_group = 1024;
  cpu.local_mem_bytes = 4 * 1024 * 1024;
  cpu.max_work_group = 4096;
  const auto problem = [](int F) {
    TuneProblem p;
    p.size = F;
    return p;
  };
  const auto point = [](const char* tile, const char* layout, const char* wg) {
    return TunePoint{{"tile", tile}, {"layout", layout}, {"wg", wg}};
  };
  // The same rule on both kinds of device: the fused candidate (the
  // lesson's kernel, faster) and 128 work-items where the tile fits whole;
  // a split tile gets one work-item per butterfly of its last column pass.
  CHECK(tunable.tune_defaults(gpu, problem(7)) == point("64", "fused", "128x1"));
  CHECK(tunable.tune_defaults(cpu, problem(7)) == point("64", "fused", "128x1"));
  CHECK(tunable.tune_defaults(gpu, problem(31)) == point("128", "split", "512x1"));
  CHECK(tunable.tune_defaults(cpu, problem(31)) == point("256", "fused", "128x1"));
  DeviceFacts small_groups = gpu;
  small_groups.max_work_group = 256;
  CHECK(tunable.tune_defaults(small_groups, problem(31)) == point("128", "split", "256x1"));
  const auto ruled_out = [&](const DeviceFacts& facts, int F, const TunePoint& p) {
    return tunable.tune_ruled_out(facts, problem(F), p);
  };
  // The lesson's kernel and the fused one take the same local memory.
  for (const char* whole : {"local", "fused"}) {
    INFO(whole);
    CHECK(ruled_out(gpu, 7, point("64", whole, "128x1")).empty());
    CHECK_THAT(ruled_out(gpu, 31, point("16", whole, "128x1")), ContainsText("narrower than the filter"));
    CHECK_THAT(ruled_out(gpu, 7, point("128", whole, "128x1")), ContainsText("of local memory whole"));
  }
  CHECK_THAT(ruled_out(gpu, 7, point("64", "local", "2048x1")), ContainsText("over the device's 1024"));
  CHECK_THAT(ruled_out(gpu, 7, point("64", "local", "64x32")), ContainsText("over the device's 1024"));
  CHECK(ruled_out(gpu, 7, point("128", "split", "512x1")).empty());
  CHECK_THAT(ruled_out(gpu, 7, point("256", "split", "1024x1")), ContainsText("of local memory"));
  CHECK_THAT(ruled_out(cpu, 7, point("16", "split", "128x1")), ContainsText("too small to split"));
  CHECK_THAT(ruled_out(cpu, 7, point("256", "split", "128x1")), ContainsText("256 work-items or more"));
  CHECK(ruled_out(cpu, 7, point("256", "split", "256x1")).empty());
  CHECK(ruled_out(gpu, 7, point("64", "registers", "64x1")).empty());
  CHECK(ruled_out(gpu, 7, point("16", "registers", "256x1")).empty());
  CHECK_THAT(ruled_out(cpu, 7, point("128", "registers", "128x1")), ContainsText("not 16, 32 or 64"));
  DeviceFacts little = gpu;
  little.local_mem_bytes = 32 * 1024;  // the registers layout's exchange takes 33 KiB at 64 points
  CHECK_THAT(ruled_out(little, 7, point("64", "registers", "64x1")), ContainsText("of local memory"));
  // The defaults run wherever some tile fits, and every point of the space
  // runs as far as these rules know.
  for (const DeviceFacts& facts : {gpu, cpu})
    for (int F : {1, 3, 15, 31, 63, 127}) {
      INFO("F = " << F << (facts.is_gpu ? ", a GPU" : ", a CPU"));
      CHECK(ruled_out(facts, F, tunable.tune_defaults(facts, problem(F))).empty());
      const auto space = tune_space(tunable, facts, problem(F));
      REQUIRE_FALSE(space.empty());
      CHECK(space.front() == tunable.tune_defaults(facts, problem(F)));
      for (const TunePoint& p : space) CHECK(std::stoi(p.at("tile")) >= F);
    }
}

TEST_CASE("docs/results/fft-tiled-model.csv is the default rule's model, as the lesson's table quotes it",
          "[step10][units]") {
  // The lesson's table of flops per output is generated from this file, so
  // the model lives in one place (tile_flops_per_output in
  // candidates/tuning.cpp). After a change to the model:
  //   CLCONV_WRITE_TILE_MODEL=1 build/bin/harness_tests "docs/results/fft-tiled-model.csv*"
  std::ostringstream model;
  model << "tile,local_bytes,filter_width,flops_per_output\n" << std::fixed << std::setprecision(4);
  for (int N : kTileSizes)
    for (int F : {3, 7, 11, 15, 21, 31, 45, 63}) {
      model << N << "," << tile_local_bytes(N) << "," << F << ",";
      if (!std::isinf(tile_flops_per_output(N, F))) model << tile_flops_per_output(N, F);
      model << "\n";
    }
  const std::string path = std::string(CLCONV_RESULTS_DIR) + "/fft-tiled-model.csv";
  if (std::getenv("CLCONV_WRITE_TILE_MODEL")) {  // regenerating is no check: say so, and fail
    std::ofstream(path) << model.str();
    FAIL("wrote " << path << "; run again without CLCONV_WRITE_TILE_MODEL to check it");
  }
  std::ifstream in(path);
  REQUIRE(in);
  std::ostringstream committed;
  committed << in.rdbuf();
  INFO(path << " differs from tile.cpp's model; regenerate it with CLCONV_WRITE_TILE_MODEL=1");
  CHECK(committed.str() == model.str());
}

TEST_CASE("step 10 meets its error bound with every tile, and the bound is not loose by orders of magnitude",
          "[step10]") {
  std::mt19937 rng(test::run_seed());
  auto step = make_step10_fft_tiled();
  const Image image = test::random_image(301, 157, rng);
  const Filter filter = test::random_filter(13, rng);
  const Problem problem = make_problem(image, filter, Border::zero);
  const Reference reference = reference_correlate(problem.padded, problem.filter);
  // Each tile in each layout it runs in, with a work-group (the lesson's
  // kernel also with one that divides no loop's count, the registers
  // layout also with fewer work-items than lines, which then take several);
  // those this device's local memory cannot hold are left out (a GPU's
  // 48 KiB: the 128- and 256-point tiles whole, the 256-point one split).
  const auto& tunable = dynamic_cast<const Tunable&>(*step);
  TuneProblem width;
  width.size = filter.width;
  int ran = 0;
  for (const char* tile : {"16 local 128", "32 local 96", "64 local 128", "128 local 128", "256 local 256",
                           "16 fused 128", "32 fused 128", "64 fused 128", "128 fused 128", "32 split 128",
                           "128 split 128", "256 split 256", "16 registers 128", "32 registers 32",
                           "64 registers 64", "64 registers 32"}) {
    RunOptions options;
    std::istringstream words(tile);
    words >> options.values["tile"] >> options.values["layout"] >> options.wg_x;
    options.wg_y = 1;
    const TunePoint point = {{"tile", options.values["tile"]},
                             {"layout", options.values["layout"]},
                             {"wg", std::to_string(options.wg_x) + "x1"}};
    if (!tunable.tune_ruled_out(test::device().facts(), width, point).empty()) continue;
    ++ran;
    const RunResult r = run_step(*step, test::device(), problem, options, 0);
    double worst = 0;
    for (std::size_t i = 0; i < reference.value.size(); ++i)
      worst = std::max(worst, std::fabs(r.output.pixels[i] - reference.value[i]));
    const double bound = tiled_fft_error_bound(filter, problem.padded, std::stoi(options.values["tile"]));
    INFO("--tile " << tile << ": worst error " << worst << ", bound " << bound << "; " << test::seed_note());
    CHECK(worst <= bound);
    CHECK(worst > bound / 1000);
  }
  CHECK(ran >= 11);  // every device runs the tiles up to 64 points in each layout, and the split 128
}

TEST_CASE("step 10: every point of the small search space checks against the reference here", "[step10]") {
  std::mt19937 rng(test::run_seed() + 10);
  auto step = make_step10_fft_tiled();
  const auto& tunable = dynamic_cast<const Tunable&>(*step);
  const Problem problem = make_problem(test::random_image(97, 61, rng), test::random_filter(13, rng), Border::clamp);
  const Reference reference = reference_correlate(problem.padded, problem.filter);
  TuneProblem width;
  width.size = 13;
  const auto space = tune_space(tunable, test::device().facts(), width, true);
  CHECK(space.size() >= 3);  // the defaults, and the other layouts and tiles
  std::set<std::string> layouts;
  for (const TunePoint& p : space) layouts.insert(p.at("layout"));
  CHECK(layouts.count("local") == 1);  // the lesson's kernel
  CHECK(layouts.count("fused") == 1);
  for (const TunePoint& p : space) {
    INFO(point_text(tunable, p) << "; " << test::seed_note());
    RunOptions options;
    options.values = {{"tile", p.at("tile")}, {"layout", p.at("layout")}};
    std::tie(options.wg_x, options.wg_y) = parse_size(p.at("wg"), "wg", 1 << 14);
    const RunResult r = run_step(*step, test::device(), problem, options, 0);
    const Comparison cmp = step->compare(r.output, problem, reference);
    INFO(cmp.describe());
    CHECK(cmp.passed());
  }
}

TEST_CASE("step 10 runs its documented defaults, then the stored winner, and a --kernel file the lesson's layout",
          "[step10]") {
  // The store in a fresh cache folder for this test's scope.
  struct ScratchCache {
    std::string old;
    bool had = false;
    ScratchCache() {
      if (const char* v = std::getenv("XDG_CACHE_HOME")) had = true, old = v;
      const std::string path = test::scratch_dir() + "/step10-store";
      std::filesystem::create_directories(path + "/clconv");
      setenv("XDG_CACHE_HOME", path.c_str(), 1);
    }
    ~ScratchCache() {
      if (had)
        setenv("XDG_CACHE_HOME", old.c_str(), 1);
      else
        unsetenv("XDG_CACHE_HOME");
    }
  } cache;
  auto step = make_step10_fft_tiled();
  const auto& tunable = dynamic_cast<const Tunable&>(*step);
  std::mt19937 rng(test::run_seed() + 11);
  const Problem problem = make_problem(test::random_image(90, 70, rng), test::random_filter(9, rng), Border::zero);
  const DeviceFacts& facts = test::device().facts();
  const auto run = [&](RunOptions options) {
    std::tie(options.wg_x, options.wg_y) = step->default_work_group(facts, problem.filter, options);
    return run_step(*step, test::device(), problem, options, 1);
  };
  RunResult r = run({});
  CHECK_THAT(r.note, ContainsText("documented defaults"));
  CHECK_THAT(r.note, ContainsText("fused layout"));  // the tile fits whole on every device
  CHECK_THAT(r.note, ContainsText("step10-fft-tiled --tune --filters random:9"));
  CHECK(r.work_group == "128");
  TuneProblem width;
  width.size = 9;
  const TunePoint winner = {{"tile", "32"}, {"layout", "registers"}, {"wg", "32x1"}};
  REQUIRE(store_winner(tunable, facts, width, {winner, 1.0, 2.0}));
  r = run({});
  CHECK_THAT(r.note, ContainsText("tuned winner"));
  CHECK_THAT(r.note, ContainsText("tile 32x32"));
  CHECK_THAT(r.note, ContainsText("registers layout"));
  CHECK(r.work_group == "32");
  // A kernel file stands for convolve: the local layout, the winner's tile.
  RunOptions with_file;
  with_file.kernel_source = step->embedded_source();
  with_file.kernel_label = "a copy of convolve.cl";
  r = run(with_file);
  CHECK_THAT(r.note, ContainsText("local layout"));
  CHECK_THAT(r.note, ContainsText("tile 32x32"));
}
