// Step 6's filter bank against its serial reference, on fresh random
// inputs (the seed is printed on failure), sizes that are not multiples of
// the work-group or the block, and every bank size. (The 3D volume's
// tests: step6-volume/tests/.)
#include "tests/catch.hpp"

#include <algorithm>
#include <random>
#include <tuple>

#include "common/machinery/device_choice.hpp"
#include "common/machinery/guard.hpp"
#include "common/machinery/program_cache.hpp"
#include "common/machinery/reference.hpp"
#include "step6-bank/bank.hpp"
#include "tests/process.hpp"
#include "tests/support.hpp"

using namespace conv;

namespace {

// A fresh random filter named random:F:S, S drawn from `rng`: the bank
// draws its other filters from seeds S + 1, S + 2, ...
Filter random_bank_filter(int width, std::mt19937& rng) {
  const unsigned seed = std::uniform_int_distribution<unsigned>(1, (1u << 30) - 15)(rng);
  return parse_filter_spec("random:" + std::to_string(width) + ":" + std::to_string(seed));
}

// The bank of `bank` filters on `problem`, in one pass: its planes, each
// checked against its own filter's exact answer.
void check_bank(const Problem& problem, int bank, std::pair<int, int> block, int wg_x, int wg_y) {
  const std::vector<Filter> filters = bank_filters(problem.filter, bank);
  const RunResult result = run_bank(test::device(), problem, filters, block, wg_x, wg_y, 0);
  REQUIRE(result.output.width == problem.out_width());
  REQUIRE(result.output.height == problem.out_height() * bank);
  const Comparison cmp = compare_bank(result.output, problem, filters);
  INFO(cmp.describe());
  CHECK(cmp.passed());
}

}  // namespace

TEST_CASE("step6 filter bank: every plane matches the serial reference", "[step6-bank]") {
  std::mt19937 rng(test::run_seed());
  INFO(test::seed_note());
  for (int bank : {1, 2, 4, 8, 16}) {
    for (auto [w, h] : {std::pair{1, 1}, {37, 29}, {70, 9}}) {
      for (int F : {1, 3, 4, 7}) {
        for (auto border : {Border::zero, Border::clamp}) {
          const Problem problem = make_problem(test::random_image(w, h, rng), random_bank_filter(F, rng), border);
          INFO("bank " << bank << ", " << w << "x" << h << ", filter " << problem.filter.name << ", border "
                       << border_name(border));
          check_bank(problem, bank, {0, 0}, 8, 8);
        }
      }
    }
  }
}

TEST_CASE("step6 filter bank: other blocks and work-groups, and separate passes time", "[step6-bank]") {
  std::mt19937 rng(test::run_seed() + 1);
  INFO(test::seed_note());
  const Problem problem = make_problem(test::random_image(53, 41, rng), random_bank_filter(5, rng), Border::zero);
  for (auto [bx, by] : {std::pair{4, 1}, {8, 2}, {4, 3}}) {
    for (auto [wx, wy] : {std::pair{16, 16}, {32, 8}, {8, 32}}) {
      INFO("block " << bx << "x" << by << ", work-group " << wx << "x" << wy);
      check_bank(problem, 4, {bx, by}, wx, wy);
    }
  }
  const Stats s = time_separate_passes(test::device(), problem, bank_filters(problem.filter, 4), {0, 0}, 16, 16, 3);
  CHECK(s.reps == 3);
  CHECK(s.median_ms > 0);
}

TEST_CASE("step6 filter bank: bad banks and blocks are refused", "[step6-bank][errors]") {
  const Problem problem = make_problem(synthetic_image(20, 20), parse_filter_spec("box:3"), Border::zero);
  CHECK_THROWS_AS(bank_filters(problem.filter, 3), UsageError);
  CHECK_THROWS_AS(default_bank_block(3), UsageError);
  // A bank's filters all have the problem's width: bank.cl takes one F.
  for (int bank : {1, 2, 4, 8, 16})
    for (const auto& f : bank_filters(parse_filter_spec("random:5:9"), bank)) CHECK(f.width == 5);
  for (int bank : {1, 4})
    CHECK_THROWS_AS(run_bank(test::device(), problem, bank_filters(problem.filter, bank), {3, 1}, 8, 8, 0),
                    UsageError);
  // A random filter's seed may not run past random's largest.
  CHECK_THROWS_AS(bank_filters(parse_filter_spec("random:3:1073741823"), 4), UsageError);
}

TEST_CASE("step6 filter bank: the filters, and a wrong plane fails the comparison", "[step6-bank]") {
  // The filters: the problem's own first; random:F:S continues with seeds
  // S + 1 ...; any other filter with its weights times 2, 3, ...
  const auto randoms = bank_filters(parse_filter_spec("random:5:7"), 4);
  REQUIRE(randoms.size() == 4);
  CHECK(randoms[0].weights == parse_filter_spec("random:5:7").weights);
  CHECK(randoms[3].weights == parse_filter_spec("random:5:10").weights);
  const Filter motion = parse_filter_spec("motion45");
  const auto scaled = bank_filters(motion, 16);
  REQUIRE(scaled.size() == 16);
  for (std::size_t i = 0; i < motion.weights.size(); ++i) CHECK(scaled[4].weights[i] == 5 * motion.weights[i]);
  for (const auto* bank : {&randoms, &scaled})
    for (std::size_t a = 0; a < bank->size(); ++a)
      for (std::size_t b = a + 1; b < bank->size(); ++b) CHECK((*bank)[a].weights != (*bank)[b].weights);

  // A bank's output passes compare_bank; the same output with two planes
  // swapped, one plane written twice, or one left untouched does not.
  std::mt19937 rng(test::run_seed() + 3);
  INFO(test::seed_note());
  for (const Filter& filter : {random_bank_filter(5, rng), motion}) {
    INFO("filter " << filter.name);
    const Problem problem = make_problem(test::random_image(45, 31, rng), filter, Border::clamp);
    const std::vector<Filter> filters = bank_filters(filter, 4);
    const Image good = run_bank(test::device(), problem, filters, {0, 0}, 16, 16, 0).output;
    const Comparison ok = compare_bank(good, problem, filters);
    INFO(ok.describe());
    CHECK(ok.passed());
    const std::size_t plane = good.pixels.size() / 4;
    auto in_plane = [&](Image& image, int k) { return image.pixels.begin() + static_cast<std::ptrdiff_t>(k * plane); };
    Image swapped = good;
    std::swap_ranges(in_plane(swapped, 1), in_plane(swapped, 2), in_plane(swapped, 2));
    Image twice = good;
    std::copy(in_plane(twice, 0), in_plane(twice, 1), in_plane(twice, 3));
    Image untouched = good;
    std::fill(in_plane(untouched, 2), in_plane(untouched, 3), poison_value());
    const std::pair<const char*, const Image*> wrong[] = {
        {"planes 1 and 2 swapped", &swapped}, {"plane 0 in plane 3", &twice}, {"plane 2 untouched", &untouched}};
    for (const auto& [what, image] : wrong) {
      const Comparison bad = compare_bank(*image, problem, filters);
      INFO(what << ": " << bad.describe());
      CHECK_FALSE(bad.passed());
    }
    CHECK_THROWS_AS(check_result(untouched), KernelFault);
  }
}

TEST_CASE("step6-bank: --verify passes, bad options are one line", "[step6-bank][cli]") {
  test::Outcome r = test::run_program("step6-bank", {"--image", "synthetic:45x31", "--filter-width", "5",
                                                    "--bank", "1,4", "--reps", "2", "--verify", "--csv",
                                                    "--no-limits"});
  INFO(r.err);
  CHECK(r.status == 0);
  CHECK(std::count(r.out.begin(), r.out.end(), '\n') == 5);  // header, separate and fused per bank
  CHECK(r.out.find("fused bank=4") != std::string::npos);

  for (const auto& [program, option, value] :
       {std::tuple<std::string, std::string, std::string>{"step6-bank", "--bank", "3"}}) {
    r = test::run_program(program, {option, value});
    INFO(program << " " << option << " " << value << ": " << r.err);
    CHECK(r.status == 2);
    CHECK(r.err_lines() == 1);
  }
}

