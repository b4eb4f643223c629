// Step 10's host-side arithmetic (step10-fft-tiled/tile.hpp): the filter's
// spectrum against a direct 2D DFT, the twiddles, the tile `--tile auto`
// picks, and the error bound against what the kernel does on this device.
#include "tests/catch.hpp"

#include <cmath>
#include <complex>
#include <cstdlib>
#include <fstream>
#include <iomanip>
#include <random>
#include <sstream>

#include "common/machinery/device_choice.hpp"
#include "common/machinery/guard.hpp"
#include "common/machinery/program_cache.hpp"
#include "common/machinery/reference.hpp"
#include "common/machinery/report.hpp"
#include "common/machinery/settings.hpp"
#include "step10-fft-tiled/tile.hpp"
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

TEST_CASE("step 10's --tile auto takes the lowest cost per output of the tiles that fit", "[step10][units]") {
  const std::uint64_t gpu = 48 * 1024, cpu = 512 * 1024;
  // A GPU's 48 KiB hold the 64-point tile (37 KiB with its padding), not the
  // 128-point one, which they hold split in four.
  CHECK(tile_fits(64, TileLayout::local, gpu));
  CHECK_FALSE(tile_fits(128, TileLayout::local, gpu));
  CHECK(tile_fits(128, TileLayout::split, gpu));
  CHECK_FALSE(tile_fits(256, TileLayout::split, gpu));
  CHECK(tile_fits(256, TileLayout::split, cpu));
  CHECK_FALSE(tile_fits(16, TileLayout::split, cpu));  // a split needs 32 points or more
  // The registers layout: 32 or 64 points, N rows of N + 1 complex floats.
  CHECK(tile_fits(64, TileLayout::registers, gpu));
  CHECK_FALSE(tile_fits(128, TileLayout::registers, cpu));
  CHECK_FALSE(tile_fits(16, TileLayout::registers, cpu));  // a work-group of 16
  CHECK(register_tile_local_bytes(64) == 8u * 64 * 65);
  CHECK_FALSE(tile_fits(64, TileLayout::registers, 32 * 1024));
  // The 32-point tile in registers up to F = 5, the 64-point one up to 33,
  // a split 128-point one from 35 (the lesson quotes these widths).
  CHECK(choose_tile(5, gpu).tile == 32);
  CHECK(choose_tile(5, gpu).layout == TileLayout::registers);
  CHECK(choose_tile(7, gpu).tile == 64);
  CHECK(choose_tile(7, gpu).layout == TileLayout::registers);
  // With room for the 256-point tile whole (a CPU's PoCL), it from F = 21.
  const std::uint64_t roomy = 4 * 1024 * 1024;
  CHECK(choose_tile(19, roomy).layout == TileLayout::registers);
  CHECK(choose_tile(21, roomy).tile == 256);
  CHECK(choose_tile(21, roomy).layout == TileLayout::local);
  CHECK(choose_tile(31, gpu).tile == 64);
  CHECK(choose_tile(31, gpu).layout == TileLayout::registers);
  CHECK(choose_tile(33, gpu).layout == TileLayout::registers);
  CHECK(choose_tile(35, gpu).tile == 128);
  CHECK(choose_tile(35, gpu).layout == TileLayout::split);
  CHECK(choose_tile(31, gpu, {TileLayout::local, TileLayout::split}).tile == 128);
  CHECK(choose_tile(31, gpu, {TileLayout::local, TileLayout::split}).layout == TileLayout::split);
  // Where a split tile saves fewer flops than it costs extra, the local one.
  CHECK(choose_tile(21, gpu, {TileLayout::local, TileLayout::split}).tile == 64);
  CHECK(tile_cost_per_output(128, TileLayout::split, 21) ==
        Approx(kSplitCost * tile_flops_per_output(128, 21)));
  CHECK(tile_cost_per_output(64, TileLayout::registers, 21) ==
        Approx(kRegisterCost * tile_flops_per_output(64, 21)));
  CHECK(choose_tile(31, gpu, {TileLayout::local}).tile == 64);
  CHECK(choose_tile(15, cpu).tile == 64);
  CHECK(choose_tile(15, cpu).layout == TileLayout::registers);
  CHECK(choose_tile(15, cpu, {TileLayout::local}).tile == 128);
  CHECK(choose_tile(31, cpu).tile == 128);
  CHECK(choose_tile(31, cpu).layout == TileLayout::local);
  CHECK(choose_tile(63, cpu).tile == 256);
  CHECK(choose_tile(63, cpu).layout == TileLayout::split);
  CHECK(choose_tile(1, cpu).tile == 32);
  CHECK(choose_tile(1, cpu).layout == TileLayout::registers);
  CHECK(choose_tile(1, cpu, {TileLayout::local}).tile == 16);
  CHECK(choose_tile(1, cpu, {TileLayout::split}).tile == 32);
  CHECK(auto_layout(128, gpu) == TileLayout::split);
  CHECK(auto_layout(64, gpu) == TileLayout::registers);
  CHECK(auto_layout(128, cpu) == TileLayout::local);
  CHECK_THROWS_WITH(auto_layout(256, gpu), ContainsText("KiB split in four"));
  for (auto device : {gpu, cpu})
    for (int F = 1; F <= 129; ++F) {
      if (F > 128 && device == gpu) continue;
      const TileChoice choice = choose_tile(F, device);
      INFO("F = " << F << ", N = " << choice.tile << ", local memory " << device);
      CHECK(choice.tile >= F);
      CHECK(tile_fits(choice.tile, choice.layout, device));
      CHECK(choice.layout == auto_layout(choice.tile, device));
      for (int other : kTileSizes)
        for (TileLayout layout : {TileLayout::local, TileLayout::split, TileLayout::registers})
          if (tile_fits(other, layout, device) &&
              !(layout == TileLayout::split && tile_fits(other, TileLayout::local, device)))
            CHECK(tile_cost_per_output(choice.tile, choice.layout, F) <= tile_cost_per_output(other, layout, F));
    }
  // No tile that fits is wide enough: the error says what would be needed.
  CHECK_THROWS_WITH(choose_tile(129, gpu), ContainsText("needs a tile of at least 129 points"));
  CHECK(std::isinf(tile_flops_per_output(32, 33)));
}

TEST_CASE("docs/results/fft-tiled-model.csv is tile.cpp's model, as the lesson's table quotes it",
          "[step10][units]") {
  // The lesson's table of flops per output is generated from this file, so
  // the model lives in one place (tile.cpp). After a change to the model:
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
  if (std::getenv("CLCONV_WRITE_TILE_MODEL")) {
    std::ofstream(path) << model.str();
    WARN("wrote " << path);
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
  for (const char* tile : {"16 local", "32 local", "64 local", "128 local", "32 split", "128 split", "256 split",
                           "32 registers", "64 registers"}) {
    RunOptions options;
    const std::string text = tile;
    options.values["tile"] = text.substr(0, text.find(' '));
    options.values["layout"] = text.substr(text.find(' ') + 1);
    options.wg_x = 128, options.wg_y = 1;
    const RunResult r = run_step(*step, test::device(), problem, options, 0);
    double worst = 0;
    for (std::size_t i = 0; i < reference.value.size(); ++i)
      worst = std::max(worst, std::fabs(r.output.pixels[i] - reference.value[i]));
    const double bound = tiled_fft_error_bound(filter, problem.padded, std::stoi(options.values["tile"]));
    INFO("--tile " << tile << ": worst error " << worst << ", bound " << bound << "; " << test::seed_note());
    CHECK(worst <= bound);
    CHECK(worst > bound / 1000);
  }
}
