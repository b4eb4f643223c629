// Step 6's filter bank against its serial reference, on fresh random
// inputs (the seed is printed on failure), sizes that are not multiples of
// the work-group or the block, and every bank size; and step 6 itself at its
// own default work-group. (The 3D volume's tests: step6-volume/tests/.)
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>

#include <memory>
#include <random>
#include <tuple>

#include "common/border.hpp"
#include "common/errors.hpp"
#include "common/reference.hpp"
#include "common/step.hpp"
#include "step6-multioutput/extras.hpp"
#include "step6-multioutput/tuning.hpp"
#include "tests/process.hpp"
#include "tests/support.hpp"

using namespace conv;

namespace {

void check_planes(const std::vector<Image>& planes, const std::vector<Reference>& refs, long long terms) {
  REQUIRE(planes.size() == refs.size());
  for (std::size_t k = 0; k < planes.size(); ++k) {
    INFO("filter " << k << " of " << planes.size());
    const Comparison cmp = compare_with_reference_terms(planes[k], refs[k], terms);
    INFO(cmp.describe());
    CHECK(cmp.passed());
  }
}

std::vector<Filter> random_bank(int bank, int width, std::mt19937& rng) {
  std::vector<Filter> filters;
  for (int k = 0; k < bank; ++k) filters.push_back(test::random_filter(width, rng));
  return filters;
}

}  // namespace

TEST_CASE("step6 filter bank: every plane matches the serial reference", "[step6-bank]") {
  auto& device = test::device();
  std::mt19937 rng(test::run_seed());
  INFO(test::seed_note());
  for (int bank : {1, 2, 4, 8, 16}) {
    for (auto [w, h] : {std::pair{1, 1}, {37, 29}, {70, 9}}) {
      for (int F : {1, 3, 4, 7}) {
        for (auto border : {Border::zero, Border::clamp}) {
          INFO("bank " << bank << ", " << w << "x" << h << ", F = " << F << ", border " << border_name(border));
          const Image padded = pad_image(test::random_image(w, h, rng), F, border);
          const auto filters = random_bank(bank, F, rng);
          const BankRun run = run_bank(device, padded, filters, 8, 8, {0, 0}, 0);
          std::vector<Reference> refs;
          for (const auto& f : filters) refs.push_back(reference_correlate(padded, f));
          check_planes(run.outputs, refs, static_cast<long long>(F) * F);
        }
      }
    }
  }
}

TEST_CASE("step6 filter bank: other blocks and work-groups, and separate passes time", "[step6-bank]") {
  auto& device = test::device();
  std::mt19937 rng(test::run_seed() + 1);
  INFO(test::seed_note());
  const Image padded = pad_image(test::random_image(53, 41, rng), 5, Border::zero);
  const auto filters = random_bank(4, 5, rng);
  std::vector<Reference> refs;
  for (const auto& f : filters) refs.push_back(reference_correlate(padded, f));
  for (auto [bx, by] : {std::pair{4, 1}, {8, 2}, {4, 3}}) {
    for (auto [wx, wy] : {std::pair{16, 16}, {32, 8}, {8, 32}}) {
      INFO("block " << bx << "x" << by << ", work-group " << wx << "x" << wy);
      check_planes(run_bank(device, padded, filters, wx, wy, {bx, by}, 0).outputs, refs, 25);
    }
  }
  const Stats s = time_separate_passes(device, padded, filters, 16, 16, {0, 0}, 3);
  CHECK(s.reps == 3);
  CHECK(s.median_ms > 0);
}

TEST_CASE("step6 filter bank: bad banks are refused", "[step6-bank][errors]") {
  auto& device = test::device();
  const Image padded = pad_image(synthetic_image(20, 20), 3, Border::zero);
  std::vector<Filter> three = {parse_filter_spec("box:3"), parse_filter_spec("box:3"), parse_filter_spec("box:3")};
  CHECK_THROWS_AS(run_bank(device, padded, three, 8, 8, {0, 0}, 0), UsageError);
  std::vector<Filter> mixed = {parse_filter_spec("box:3"), parse_filter_spec("box:5")};
  CHECK_THROWS_AS(run_bank(device, padded, mixed, 8, 8, {0, 0}, 0), UsageError);
  CHECK_THROWS_AS(run_bank(device, padded, {parse_filter_spec("box:3")}, 8, 8, {3, 1}, 0), UsageError);
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

namespace conv {
std::unique_ptr<Step> make_step6_multioutput();
}

// The conformance suite runs step 6 with four fixed work-group shapes; the
// executables run it with its own default (--wg auto: 32x4 on a GPU).
TEST_CASE("step6: the default configuration at its own work-group matches the reference",
          "[step6-defaults]") {
  auto& device = test::device();
  std::mt19937 rng(test::run_seed());
  auto step = make_step6_multioutput();
  for (int width : {1, 3, 4, 5, 7, 8, 13, 15, 31})
    for (auto [w, h] : {std::pair<int, int>{257, 131}, std::pair<int, int>{1000, 37}}) {
      const Filter filter = test::random_filter(width, rng);
      const Problem problem = make_problem(test::random_image(w, h, rng), filter, Border::clamp);
      RunOptions options;
      std::tie(options.wg_x, options.wg_y) = step->default_work_group(device.facts(), width);
      INFO(w << "x" << h << ", filter " << filter.name << ", wg " << options.wg_x << "x" << options.wg_y
             << "; " << test::seed_note());
      const RunResult result = run_step(*step, device, problem, options, 0);
      const Comparison cmp =
          compare_with_reference(result.output, reference_correlate(problem.padded, filter), width);
      INFO(cmp.describe());
      CHECK(cmp.passed());
    }
}

// The tuned defaults differ by device type; each type's choices at every
// width (block, unroll, weights, shape, work-group) run here as explicit
// settings, so a GPU's configurations are checked on any device too.
TEST_CASE("step6: the configurations the defaults pick on a CPU and on a GPU match the reference",
          "[step6-defaults]") {
  auto& device = test::device();
  std::mt19937 rng(test::run_seed() + 2);
  auto step = make_step6_multioutput();
  for (bool gpu : {false, true}) {
    DeviceFacts facts = device.facts();
    facts.is_gpu = gpu;
    if (gpu) facts.local_mem_bytes = 48 * 1024;  // what OpenCL offers on NVIDIA's GPUs
    for (int width : {1, 2, 3, 4, 5, 7, 8, 9, 13, 15, 16, 17, 31}) {
      const Filter filter = test::random_filter(width, rng);
      const Problem problem = make_problem(test::random_image(131, 67, rng), filter, Border::clamp);
      RunOptions options;
      std::tie(options.wg_x, options.wg_y) = step->default_work_group(facts, width);
      options.values = step6_default_settings(facts, width, options.wg_x, options.wg_y);
      std::string described;
      for (const auto& [name, value] : options.values) described += " " + name + "=" + value;
      INFO((gpu ? "a GPU's" : "a CPU's") << " defaults at F = " << width << ":" << described << ", wg "
                                         << options.wg_x << "x" << options.wg_y << "; " << test::seed_note());
      const RunResult result = run_step(*step, device, problem, options, 0);
      const Comparison cmp =
          compare_with_reference(result.output, reference_correlate(problem.padded, filter), width);
      INFO(cmp.describe());
      CHECK(cmp.passed());
    }
  }
}
