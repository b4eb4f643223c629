// Step 6's filter bank against its serial reference, on fresh random
// inputs (the seed is printed on failure), sizes that are not multiples of
// the work-group or the block, and every bank size; and step 6 itself at its
// own default work-group. (The 3D volume's tests: step6-volume/tests/.)
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>

#include <algorithm>
#include <map>
#include <memory>
#include <random>
#include <set>
#include <sstream>
#include <tuple>

#include "common/border.hpp"
#include "common/errors.hpp"
#include "common/guard.hpp"
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

// A fresh random filter named random:F:S, S drawn from `rng`: step 6's
// --bank draws the bank's other filters from seeds S + 1, S + 2, ...
Filter random_bank_filter(int width, std::mt19937& rng) {
  const unsigned seed = std::uniform_int_distribution<unsigned>(1, (1u << 30) - 15)(rng);
  return parse_filter_spec("random:" + std::to_string(width) + ":" + std::to_string(seed));
}

// Step 6 with `options` (a --bank N) on `problem`: its N planes.
std::vector<Image> bank_planes(Step& step, const Problem& problem, const RunOptions& options) {
  const int bank = std::stoi(options.values.at("bank"));
  const RunResult result = run_step(step, test::device(), problem, options, 0);
  REQUIRE(result.planes == bank);
  REQUIRE(result.output.width == problem.out_width());
  REQUIRE(result.output.height == problem.out_height() * bank);
  return split_planes(result.output, bank);
}

// The exact answer for each filter of the bank step 6 computes.
std::vector<Reference> bank_references(const Step& step, const Problem& problem, const RunOptions& options) {
  std::vector<Reference> refs;
  for (const auto& f : step.plane_filters(problem, options)) refs.push_back(reference_correlate(problem.padded, f));
  return refs;
}

RunOptions with_bank(int bank, int wg_x, int wg_y) {
  RunOptions options;
  options.values["bank"] = std::to_string(bank);
  options.wg_x = wg_x;
  options.wg_y = wg_y;
  return options;
}

}  // namespace

TEST_CASE("step6 filter bank: every plane matches the serial reference", "[step6-bank]") {
  std::mt19937 rng(test::run_seed());
  INFO(test::seed_note());
  auto step = make_step6_multioutput();
  for (int bank : {1, 2, 4, 8, 16}) {
    for (auto [w, h] : {std::pair{1, 1}, {37, 29}, {70, 9}}) {
      for (int F : {1, 3, 4, 7}) {
        for (auto border : {Border::zero, Border::clamp}) {
          const Problem problem = make_problem(test::random_image(w, h, rng), random_bank_filter(F, rng), border);
          INFO("bank " << bank << ", " << w << "x" << h << ", filter " << problem.filter.name << ", border "
                       << border_name(border));
          const RunOptions options = with_bank(bank, 8, 8);
          check_planes(bank_planes(*step, problem, options), bank_references(*step, problem, options),
                       static_cast<long long>(F) * F);
        }
      }
    }
  }
}

TEST_CASE("step6 filter bank: other blocks and work-groups, and separate passes time", "[step6-bank]") {
  std::mt19937 rng(test::run_seed() + 1);
  INFO(test::seed_note());
  auto step = make_step6_multioutput();
  const Problem problem = make_problem(test::random_image(53, 41, rng), random_bank_filter(5, rng), Border::zero);
  const std::vector<Reference> refs = bank_references(*step, problem, with_bank(4, 16, 16));
  for (auto [bx, by] : {std::pair{4, 1}, {8, 2}, {4, 3}}) {
    for (auto [wx, wy] : {std::pair{16, 16}, {32, 8}, {8, 32}}) {
      INFO("block " << bx << "x" << by << ", work-group " << wx << "x" << wy);
      check_planes(bank_planes(*step, problem, bank_options(4, {bx, by}, wx, wy)), refs, 25);
    }
  }
  const Stats s = time_separate_passes(test::device(), problem, 4, {0, 0}, 16, 16, 3);
  CHECK(s.reps == 3);
  CHECK(s.median_ms > 0);
}

TEST_CASE("step6 filter bank: bad banks are refused", "[step6-bank][errors]") {
  auto step = make_step6_multioutput();
  const Problem problem = make_problem(synthetic_image(20, 20), parse_filter_spec("box:3"), Border::zero);
  CHECK_THROWS_AS(run_step(*step, test::device(), problem, with_bank(3, 8, 8), 0), UsageError);
  CHECK_THROWS_AS(step6_bank_filters(problem.filter, 3), UsageError);
  CHECK_THROWS_AS(bank_options(3, {0, 0}, 8, 8), UsageError);
  // A bank's filters all have the problem's width: bank.cl takes one F.
  for (int bank : {1, 2, 4, 8, 16})
    for (const auto& f : step6_bank_filters(parse_filter_spec("random:5:9"), bank)) CHECK(f.width == 5);
  CHECK_THROWS_AS(run_step(*step, test::device(), problem, bank_options(1, {3, 1}, 8, 8), 0), UsageError);
  CHECK_THROWS_AS(run_step(*step, test::device(), problem, bank_options(4, {3, 1}, 8, 8), 0), UsageError);
  // bank.cl has one shape of loops; --bank 4 refuses the others.
  for (const auto& [name, value] : {std::pair<std::string, std::string>{"weights", "inline"},
                                    {"weights", "local"},
                                    {"shape", "vectors"},
                                    {"copy", "flat"}}) {
    INFO("--bank 4 --" << name << " " << value);
    RunOptions options = with_bank(4, 8, 8);
    options.values[name] = value;
    CHECK_THROWS_AS(step->check_options(options), UsageError);
    CHECK_THROWS_AS(run_step(*step, test::device(), problem, options, 0), UsageError);
  }
  // A random filter's seed may not run past random's largest.
  CHECK_THROWS_AS(step6_bank_filters(parse_filter_spec("random:3:1073741823"), 4), UsageError);
}

TEST_CASE("step6 filter bank: the filters, and a wrong plane fails the comparison", "[step6-bank]") {
  // The filters: the problem's own first; random:F:S continues with seeds
  // S + 1 ...; any other filter with its weights times 2, 3, ...
  const auto randoms = step6_bank_filters(parse_filter_spec("random:5:7"), 4);
  REQUIRE(randoms.size() == 4);
  CHECK(randoms[0].weights == parse_filter_spec("random:5:7").weights);
  CHECK(randoms[3].weights == parse_filter_spec("random:5:10").weights);
  const Filter motion = parse_filter_spec("motion45");
  const auto scaled = step6_bank_filters(motion, 16);
  REQUIRE(scaled.size() == 16);
  for (std::size_t i = 0; i < motion.weights.size(); ++i) CHECK(scaled[4].weights[i] == 5 * motion.weights[i]);
  for (const auto* bank : {&randoms, &scaled})
    for (std::size_t a = 0; a < bank->size(); ++a)
      for (std::size_t b = a + 1; b < bank->size(); ++b) CHECK((*bank)[a].weights != (*bank)[b].weights);

  // A bank's output as step 6 returns it passes Step::compare; the same
  // output with two planes swapped, one plane written twice, or one left
  // untouched does not.
  std::mt19937 rng(test::run_seed() + 3);
  INFO(test::seed_note());
  auto step = make_step6_multioutput();
  for (const Filter& filter : {random_bank_filter(5, rng), motion}) {
    INFO("filter " << filter.name);
    const Problem problem = make_problem(test::random_image(45, 31, rng), filter, Border::clamp);
    const RunOptions options = with_bank(4, 16, 16);
    const Image good = run_step(*step, test::device(), problem, options, 0).output;
    const Reference reference = reference_correlate(problem.padded, filter);
    const Comparison ok = step->compare(good, problem, reference);
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
      const Comparison bad = step->compare(*image, problem, reference);
      INFO(what << ": " << bad.describe());
      CHECK_FALSE(bad.passed());
    }
    CHECK_THROWS_AS(check_result(untouched), KernelFault);
  }
}

// The suites run every bank size; a kernel file graded in place of
// convolve.cl only where it is built (--bank 1), and the executable refuses
// --kernel with a bank before it reads the file.
TEST_CASE("step6 filter bank: the suite runs every bank size, a kernel file only bank 1", "[step6-bank]") {
  auto step = make_step6_multioutput();
  std::set<std::string> banks, with_file;
  for (const auto& c : suite_configurations(*step)) banks.insert(step->option(c, "bank"));
  for (const auto& c : suite_configurations(*step, true)) with_file.insert(step->option(c, "bank"));
  CHECK(banks == std::set<std::string>{"1", "2", "4", "8", "16"});
  CHECK(with_file == std::set<std::string>{"1"});
  // A kernel file also skips --tile off, which runs convolve_direct.
  CHECK(suite_configurations(*step, true).size() + 5 == suite_configurations(*step).size());
  std::set<std::string> tiles, tiles_with_file;
  for (const auto& c : suite_configurations(*step)) tiles.insert(step->option(c, "tile"));
  for (const auto& c : suite_configurations(*step, true)) tiles_with_file.insert(step->option(c, "tile"));
  CHECK(tiles == std::set<std::string>{"auto", "on", "off"});
  CHECK(tiles_with_file == std::set<std::string>{"auto", "on"});
  const test::Outcome r = test::run_program("step6-multioutput", {"--kernel", "no-such-kernel.cl", "--bank", "4"});
  INFO(r.err);
  CHECK(r.status == 2);
  CHECK(r.err_lines() == 1);
  CHECK(r.err.find("--kernel no-such-kernel.cl") != std::string::npos);
}

// The tour takes a step's own option with --set: step 6 with a bank, its
// row named after it and counting all four planes; the other steps as usual.
TEST_CASE("the tour runs step 6 with a bank through --set", "[step6-bank][cli]") {
  test::Outcome r = test::run_program(
      "tour", {"--image", "synthetic:40x30", "--filter", "random:5:3", "--reps", "2", "--csv", "--set", "bank=4"});
  INFO(r.err);
  REQUIRE(r.status == 0);
  std::istringstream lines(r.out);
  std::string line;
  std::getline(lines, line);
  const auto fields_of = conv::test::csv_fields;
  const auto header = fields_of(line);
  auto column = [&](const std::string& name) {
    const auto at = std::find(header.begin(), header.end(), name);
    REQUIRE(at != header.end());
    return static_cast<std::size_t>(at - header.begin());
  };
  std::map<std::string, std::vector<std::string>> by_step;
  while (std::getline(lines, line)) {
    const auto fields = fields_of(line);
    by_step[fields.at(column("step"))] = fields;
  }
  REQUIRE(by_step.count("step6-multioutput"));
  const auto& bank_row = by_step["step6-multioutput"];
  CHECK(bank_row.at(column("variant")) == "default bank=4");
  CHECK(std::stod(bank_row.at(column("max_rel_err"))) < 1e-5);
  // GFLOP/s counts the four planes: 2 * F * F multiply-adds per output.
  const double ms = std::stod(bank_row.at(column("median_ms")));
  CHECK(std::stod(bank_row.at(column("gflops"))) == Approx(2.0 * 25 * 40 * 30 * 4 / (ms * 1e6)).epsilon(0.01));
  CHECK(by_step["step5-vector"].at(column("variant")) == "float4");  // no bank there
  CHECK(r.err.find("step6-multioutput default bank=4") != std::string::npos);

  for (const char* set : {"bank=3", "nosuch=1", "bank", "variant=float4"}) {
    r = test::run_program("tour", {"--image", "synthetic:8x8", "--set", set});
    INFO("--set " << set << ": " << r.err);
    CHECK(r.status == 2);
    CHECK(r.err_lines() == 1);
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
