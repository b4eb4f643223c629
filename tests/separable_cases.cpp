// Step 8's own conformance cases: filters of known rank (1, 2, full) and one
// whose smallest singular values straddle the rank tolerance; the rank the
// decomposition finds, and the output of the lesson's passes and of every
// candidate kernel of its space (the box kernel on boxes) against the
// serial reference. Tagged with the step, so ctest -L step8 runs them.
#include "tests/catch.hpp"

#include <cfloat>
#include <cmath>
#include <map>
#include <random>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "common/machinery/device_choice.hpp"
#include "common/machinery/guard.hpp"
#include "common/machinery/program_cache.hpp"
#include "common/machinery/reference.hpp"
#include "common/machinery/registry.hpp"
#include "common/machinery/report.hpp"
#include "common/machinery/settings.hpp"
#include "step8-separable/decompose.hpp"
#include "common/machinery/parse.hpp"
#include "common/machinery/tuning.hpp"
#include "tests/support.hpp"

using namespace conv;

namespace {

std::vector<double> random_vector(int n, std::mt19937& rng) {
  std::uniform_real_distribution<double> d(-1.0, 1.0);
  std::vector<double> v(static_cast<std::size_t>(n));
  for (auto& x : v) x = d(rng);
  return v;
}

// sum_j sigma_j a_j b_j^T with random a_j, b_j orthonormalized (Gram-Schmidt),
// so the singular values are exactly `sigma`.
Filter filter_with_singular_values(const std::vector<double>& sigma, int n, std::mt19937& rng) {
  auto orthonormal = [&](std::size_t count) {
    std::vector<std::vector<double>> q;
    while (q.size() < count) {
      auto v = random_vector(n, rng);
      for (const auto& u : q) {
        double dot = 0;
        for (int i = 0; i < n; ++i) dot += u[i] * v[i];
        for (int i = 0; i < n; ++i) v[i] -= dot * u[i];
      }
      double norm = 0;
      for (double x : v) norm += x * x;
      norm = std::sqrt(norm);
      for (auto& x : v) x /= norm;
      q.push_back(v);
    }
    return q;
  };
  const auto a = orthonormal(sigma.size()), b = orthonormal(sigma.size());
  Filter f;
  f.width = n;
  f.name = "rank-" + std::to_string(sigma.size()) + " test filter";
  f.weights.assign(static_cast<std::size_t>(n) * n, 0.0f);
  for (int r = 0; r < n; ++r)
    for (int c = 0; c < n; ++c) {
      double w = 0;
      for (std::size_t j = 0; j < sigma.size(); ++j) w += sigma[j] * a[j][r] * b[j][c];
      f.weights[static_cast<std::size_t>(r) * n + c] = static_cast<float>(w);
    }
  return f;
}

// The step's Tunable side: its space, defaults and rules.
const Tunable& space_of(const Step& step) { return dynamic_cast<const Tunable&>(step); }

// The values of the step's "method" parameter: the lesson's passes and
// every candidate kernel, as the space declares them.
std::vector<std::string> methods(const Step& step) {
  for (const TuneParameter& p : space_of(step).tune_parameters())
    if (p.name == "method") return p.values;
  return {};
}

// A point's values as options (the work-group apart).
RunOptions options_of(const TunePoint& point) {
  RunOptions options;
  for (const auto& [name, value] : point)
    if (name != "wg") options.values[name] = value;
  std::tie(options.wg_x, options.wg_y) = parse_size(point.at("wg"), "wg", 1024);
  return options;
}

// Every method the space has for this filter (the box kernel for a box
// only), and the passes without a tile, at work-group 16x8 on a 203x117
// random image (not a multiple of any work-group), both borders.
void check_every_method(const Filter& f, std::mt19937& rng) {
  auto step = find_step("step8-separable");
  const Image img = conv::test::random_image(203, 117, rng);
  const bool box = space_of(*step).tune_problem(f).detail == "box";
  std::vector<std::map<std::string, std::string>> runs;
  for (const std::string& m : methods(*step))
    if (m != "box" || box) runs.push_back({{"method", m}});
  runs.push_back({{"method", "passes"}, {"rows", "direct"}, {"columns", "direct"}});
  for (Border border : {Border::zero, Border::clamp})
    for (const auto& values : runs) {
      RunOptions options;
      options.values = values;
      options.wg_x = 16;
      options.wg_y = 8;
      conv::test::use_student_kernel("step8-separable", options);
      const Problem problem = make_problem(img, f, border);
      const RunResult r = run_step(*step, conv::test::device(), problem, options, 0);
      const Comparison cmp =
          step->compare(r.output, problem, reference_correlate(problem.padded, f));
      INFO(f.name << ", " << step->describe(options) << ", border " << border_name(border) << ": "
                  << cmp.describe() << "; " << r.note << "; " << conv::test::seed_note());
      CHECK(cmp.passed());
    }
}

}  // namespace

TEST_CASE("step8-separable: rank 1 filters are found to be rank 1", "[conformance][step8-separable]") {
  for (const char* spec : {"box:31", "gaussian:7", "sobel-x", "sobel-y", "box:2"}) {
    const SeparableFilter s = separate(parse_filter_spec(spec));
    INFO(spec);
    CHECK(s.rank == 1);
  }
  std::mt19937 rng(conv::test::run_seed());
  const Filter outer = filter_with_singular_values({2.0}, 9, rng);  // a file could hold this
  CHECK(separate(outer).rank == 1);
  check_every_method(outer, rng);
  check_every_method(parse_filter_spec("sobel-x"), rng);
  check_every_method(parse_filter_spec("box:5"), rng);
}

TEST_CASE("step8-separable: rank 2 and full rank", "[conformance][step8-separable]") {
  std::mt19937 rng(conv::test::run_seed() + 1);
  const Filter two = filter_with_singular_values({1.0, 0.5}, 11, rng);
  CHECK(separate(two).rank == 2);
  CHECK(separate(parse_filter_spec("laplacian")).rank == 2);
  check_every_method(two, rng);
  const Filter full = conv::test::random_filter(13, rng);
  const SeparableFilter s = separate(full);
  CHECK(s.full_rank == 13);
  CHECK(s.rank == 13);
  CHECK(s.separable_work() > s.direct_work());  // the step says it is the slower way
  CHECK_THAT(describe_work(s), ContainsText("more work"));
  check_every_method(full, rng);
}

TEST_CASE("step8-separable: singular values near the tolerance", "[conformance][step8-separable]") {
  // The tolerance F * F * eps * max|K| is a few 1e-6 here: the term with
  // sigma = 2e-4 (weights up to about 7e-5) is kept, the one with 1e-7
  // (weights below 1e-7) is not, so the rank is 4, and what is dropped stays
  // within the bound the comparison states.
  std::mt19937 rng(conv::test::run_seed() + 2);
  const Filter f = filter_with_singular_values({1.0, 0.3, 1e-3, 2e-4, 1e-7}, 9, rng);
  const SeparableFilter s = separate(f);
  INFO("singular values " << s.singular_values[0] << ", " << s.singular_values[3] << ", "
                          << s.singular_values[4] << ", tolerance " << separable_tolerance(f));
  CHECK(s.rank == 4);
  double worst = 0;
  for (double r : s.residual) worst = std::max(worst, std::fabs(r));
  CHECK(worst <= separable_tolerance(f));
  check_every_method(f, rng);
}

// The documented defaults of both kinds of device (one rule each), as
// explicit points, run here on any device: rank 1 at several widths, rank
// 2 and full rank (the column passes after the first add to the output),
// boxes up to the widest filter (127, where the blocks shrink to fit).
TEST_CASE("step8-separable: the documented defaults of a CPU and of a GPU", "[conformance][step8-separable]") {
  auto& device = conv::test::device();
  auto step = find_step("step8-separable");
  const Tunable& space = space_of(*step);
  std::mt19937 rng(conv::test::run_seed() + 3);
  std::vector<Filter> filters;
  for (int width : {1, 2, 3, 4, 5, 8, 15, 17, 31})
    filters.push_back(filter_with_singular_values({2.0}, width, rng));
  filters.push_back(filter_with_singular_values({1.0, 0.5}, 15, rng));
  filters.push_back(conv::test::random_filter(7, rng));
  filters.push_back(conv::test::random_filter(13, rng));
  for (const char* box : {"box:9", "box:21", "box:127"}) filters.push_back(parse_filter_spec(box));
  for (bool gpu : {false, true}) {
    DeviceFacts facts = device.facts();
    facts.is_gpu = gpu;
    if (gpu) facts.local_mem_bytes = 48 * 1024;  // what OpenCL offers on NVIDIA's GPUs
    int i = 0;
    for (const Filter& f : filters) {
      const TuneProblem key = space.tune_problem(f);
      const TunePoint defaults = space.tune_defaults(facts, key);
      INFO((gpu ? "a GPU's" : "a CPU's") << " defaults for " << f.name << " (" << key.text()
                                         << "): " << point_text(space, defaults) << "; "
                                         << conv::test::seed_note());
      CHECK(defaults.at("method") == "passes");  // the lesson's kernel on every device
      CHECK(space.tune_ruled_out(facts, key, defaults).empty());
      RunOptions options = options_of(defaults);
      conv::test::use_student_kernel("step8-separable", options);
      const Border border = ++i % 2 ? Border::zero : Border::clamp;
      const Problem problem = make_problem(conv::test::random_image(131, 67, rng), f, border);
      const RunResult r = run_step(*step, device, problem, options, 0);
      const Comparison cmp = step->compare(r.output, problem, reference_correlate(problem.padded, f));
      INFO(cmp.describe() << ", border " << border_name(border));
      CHECK(cmp.passed());
    }
  }
}

TEST_CASE("step8-separable: the strip kernel down tall strips, its ring wrapping",
          "[conformance][step8-separable]") {
  // 517 rows in chunks of 16 (work-group 16x8, block 4x2) or 64 (4x8):
  // with two strips across, the strips are several chunks tall on a
  // device of up to 8 compute units, so the ring of CHUNK + F - 1 rows is
  // overwritten again and again, and the last strip ends short.
  auto step = find_step("step8-separable");
  std::mt19937 rng(conv::test::run_seed() + 5);
  const Image img = conv::test::random_image(67, 517, rng);
  const std::vector<Filter> filters = {parse_filter_spec("gaussian:15"),
                                       filter_with_singular_values({1.0, 0.5}, 9, rng),
                                       conv::test::random_filter(5, rng)};
  for (const Filter& f : filters)
    for (const std::string block : {"4x2", "4x8"}) {
      RunOptions options;
      options.values = {{"method", "strip"}, {"block", block}};
      options.wg_x = 16;
      options.wg_y = 8;
      conv::test::use_student_kernel("step8-separable", options);
      const Problem problem = make_problem(img, f, Border::zero);
      const RunResult r = run_step(*step, conv::test::device(), problem, options, 0);
      const Comparison cmp = step->compare(r.output, problem, reference_correlate(problem.padded, f));
      INFO(f.name << ", block " << block << ": " << cmp.describe() << "; " << r.note << "; "
                  << conv::test::seed_note());
      CHECK(cmp.passed());
    }
}


TEST_CASE("step8-separable: the box kernel at every width, its strips and batches uneven",
          "[conformance][step8-separable]") {
  // Widths that give one run per batch (F >= 32: batches of 32 and of
  // F - 32 rows; up to four batches at 100 and 127, the widest filter),
  // several runs per batch (F < 32), a single column (F = 1) and even
  // widths; work-groups of one row and of 8 x 8 (one row of 64); batches
  // of 32, 16 and 8 rows in turn (each where a step of F rows is at most
  // four of them) and strips cut for 2 to 16 work-groups per compute unit;
  // images that are a multiple of no strip. The first image is random, the
  // second a bright patch on zeros: a window of zeros must come out exactly
  // zero (its bound is zero), which a running sum that subtracts the
  // leaving input would miss.
  auto step = find_step("step8-separable");
  std::mt19937 rng(conv::test::run_seed() + 5);
  Image patch(97, 150, 0.0f);
  for (int y = 20; y < 40; ++y)
    for (int x = 10; x < 50; ++x) patch.pixels[static_cast<std::size_t>(y) * patch.width + x] = 1.0e4f;
  const std::vector<Image> images = {conv::test::random_image(203, 117, rng), patch};
  int i = 0;
  for (int width : {1, 2, 3, 5, 8, 13, 31, 33, 35, 63, 100, 127})
    for (const auto& [wg_x, wg_y] : {std::pair<int, int>{64, 1}, {8, 8}, {256, 1}}) {
      if (width + 3 > wg_x * wg_y) continue;
      const Filter f = parse_filter_spec("box:" + std::to_string(width));
      const Image& img = images[static_cast<std::size_t>(i++ % 2)];
      const Border border = i % 3 ? Border::zero : Border::clamp;
      int batch = 32 >> (i % 3);
      while (width > 4 * batch) batch *= 2;
      const std::string strips = std::to_string(2 << (i % 4));
      RunOptions options;
      options.values["method"] = "box";
      options.values["batch"] = std::to_string(batch);
      options.values["strips"] = strips;
      options.wg_x = wg_x, options.wg_y = wg_y;
      conv::test::use_student_kernel("step8-separable", options);
      const Problem problem = make_problem(img, f, border);
      const RunResult r = run_step(*step, conv::test::device(), problem, options, 0);
      const Comparison cmp = step->compare(r.output, problem, reference_correlate(problem.padded, f));
      INFO(f.name << ", wg " << wg_x << "x" << wg_y << ", batch " << batch << ", strips " << strips << ", "
                  << img.width << "x" << img.height << ", border " << border_name(border) << ": " << cmp.describe()
                  << "; " << conv::test::seed_note());
      CHECK(cmp.passed());
    }
}

TEST_CASE("step8-separable: the problem a filter is, and the box kernel for a box only",
          "[conformance][step8-separable]") {
  auto step = find_step("step8-separable");
  const Tunable& space = space_of(*step);
  CHECK(space.tune_problem(parse_filter_spec("box:15")).text() == "F=15 box");
  CHECK(space.tune_problem(parse_filter_spec("gaussian:7")).text() == "F=7 rank=1");
  CHECK(space.tune_problem(parse_filter_spec("laplacian")).text() == "F=3 rank=2");
  CHECK(space.tune_problem(parse_filter_spec("random:5")).text() == "F=5 rank=5");
  // The box kernel is in the space of a box and in no other; every method
  // is in a box's.
  const DeviceFacts& facts = conv::test::device().facts();
  std::set<std::string> in_box, in_gaussian;
  for (const TunePoint& p : tune_space(space, facts, space.tune_problem(parse_filter_spec("box:7"))))
    in_box.insert(p.at("method"));
  for (const TunePoint& p : tune_space(space, facts, space.tune_problem(parse_filter_spec("gaussian:7"))))
    in_gaussian.insert(p.at("method"));
  CHECK(in_box.count("box") == 1);
  CHECK(in_gaussian.count("box") == 0);
  for (const std::string& m : methods(*step)) {
    INFO("method " << m);
    CHECK(in_box.count(m) == 1);
  }
  std::mt19937 rng(conv::test::run_seed() + 6);
  const Image img = conv::test::random_image(70, 45, rng);
  auto run = [&](const std::string& spec) {
    RunOptions options;
    options.values["method"] = "box";
    const Problem problem = make_problem(img, parse_filter_spec(spec), Border::zero);
    std::tie(options.wg_x, options.wg_y) = step->default_work_group(facts, problem.filter, options);
    return run_step(*step, conv::test::device(), problem, options, 0);
  };
  CHECK_THAT(run("box:21").note, ContainsText("adds only"));
  CHECK_THROWS_AS(run("gaussian:9"), UsageError);
  CHECK_THROWS_AS(run("sobel-x"), UsageError);
}
