// The conformance suite: every registered step (each of its variants, and
// each value of its own settings)
// against the serial reference, over sizes that are multiples of no
// work-group (1x1, 17x33, 1919x1079) and some that are, filter widths 1..31 odd and even, four work-group shapes and
// both borders. Test cases are registered per step at start-up, tagged with
// the step's name, so `ctest -L step1-naive` runs one step's cases.
// CLCONV_KERNEL_STEP<N>=FILE grades FILE in place of step N's embedded kernel
// (docs/coursework.md).
#define CATCH_CONFIG_RUNNER
#include "tests/catch.hpp"

#include <deque>
#include <map>
#include <functional>
#include <iterator>
#include <random>

#include "common/machinery/cli.hpp"
#include "common/machinery/conformance_cases.hpp"
#include "common/machinery/device_choice.hpp"
#include "common/machinery/guard.hpp"
#include "common/machinery/program_cache.hpp"
#include "common/machinery/reference.hpp"
#include "common/machinery/registry.hpp"
#include "common/machinery/report.hpp"
#include "common/machinery/settings.hpp"
#include "common/machinery/watchdog.hpp"
#include "coursework/impulse_report.hpp"
#include "tests/support.hpp"

using namespace conv;
using conv::test::device;

namespace {

struct Shape {
  int x, y;
};
const Shape kWorkGroups[] = {{8, 8}, {16, 16}, {32, 8}, {8, 32}};
const int kWidths[] = {1, 2, 3, 4, 5, 7, 8, 13, 16, 17, 31, -1};  // -1: motion45

// What to run a step as: suite_configurations (common/core/step.hpp); with a
// student's kernel, those that build it.
using Config = RunOptions;

std::vector<Config> configurations(const Step& step) {
  RunOptions graded;
  conv::test::use_student_kernel(step.name(), graded);
  return suite_configurations(step, !graded.kernel_source.empty());
}

// For case i of a group of `cases`: the first configuration always, and the
// others dealt out in turn, so every configuration meets every kind of case
// (the group runs each of them at least once) without each (compile-time
// width) program being built for every configuration.
std::vector<Config> configs_for_case(const std::vector<Config>& all, int i, int cases) {
  if (all.size() == 1) return all;
  std::vector<Config> out = {all.front()};
  const int others = static_cast<int>(all.size()) - 1;
  if (others <= cases) {
    out.push_back(all[1 + i % others]);
    return out;
  }
  for (int k = i % cases; k < others; k += cases) out.push_back(all[1 + k]);
  return out;
}

RunOptions options_for(const Step& step, const Config& config) {
  RunOptions options = config;
  conv::test::use_student_kernel(step.name(), options);
  return options;
}

// ", kernel file PATH" when a student's kernel is graded, else nothing.
std::string kernel_note(const RunOptions& options) {
  return options.kernel_label.empty() ? "" : ", kernel file " + options.kernel_label;
}

Filter filter_for(int width, std::mt19937& rng) {
  return width < 0 ? parse_filter_spec("motion45") : conv::test::random_filter(width, rng);
}

std::string case_name(const Image& img, const Filter& f, Border b, Shape wg,
                      const std::string& variant) {  // variant: Step::describe()
  return std::to_string(img.width) + "x" + std::to_string(img.height) + ", filter " + f.name +
         ", border " + border_name(b) + ", wg " + std::to_string(wg.x) + "x" +
         std::to_string(wg.y) + ", variant " + variant;
}

// run_step() for one case; a kernel's fault (a pixel never written, a NaN,
// a write past a buffer) fails the case with the INFO()s in scope: the
// case and the seed.
bool run_case(Step& step, const Problem& problem, const RunOptions& options, RunResult& result) {
  // A student's kernel that never returns would hang the suite: end it
  // with the case and the seed instead.
  const Watchdog watchdog("conformance_tests", options.kernel_label.empty() ? 0 : kDefaultKernelTimeout,
                          Catch::getResultCapture().getCurrentTestName() + ": " + options.kernel_label +
                              " did not finish within 60 s; " + conv::test::seed_note());
  try {
    result = run_step(step, device(), problem, options, 0);
    return true;
  } catch (const KernelFault& e) {
    FAIL_CHECK(e.what());
    return false;
  }
}

// Runs one case into a poisoned output, for each configuration, and checks
// every pixel against one reference.
void check_case(Step& step, const std::vector<Config>& configs, const Image& img, const Filter& f,
                Border border, Shape wg) {
  const Problem problem = make_problem(img, f, border);
  const Reference reference = reference_correlate(problem.padded, f);
  for (const Config& config : configs) {
    RunOptions options = options_for(step, config);
    INFO(step.name() << ": " << case_name(img, f, border, wg, step.describe(options))
                     << kernel_note(options) << "; " << conv::test::seed_note());
    options.wg_x = wg.x;
    options.wg_y = wg.y;
    RunResult result;
    if (!run_case(step, problem, options, result)) continue;
    INFO("ran with work-group " << result.work_group);
    const Comparison cmp = step.compare(result.output, problem, reference);
    INFO(cmp.describe());
    CHECK(cmp.passed());
  }
}

using Body = std::function<void(Step&, std::mt19937&)>;

// Sizes 1x1 .. 17x33 with every filter width, every variant.
void small_sizes(Step& step, std::mt19937& rng) {
  const Shape sizes[] = {{1, 1}, {3, 2}, {16, 16}, {17, 33}};
  const int cases = 4 * static_cast<int>(std::size(kWidths));
  int i = 0;
  for (Shape s : sizes)
    for (int w : kWidths) {
      ++i;
      check_case(step, configs_for_case(configurations(step), i, cases), conv::test::random_image(s.x, s.y, rng),
                 filter_for(w, rng), i % 2 ? Border::zero : Border::clamp, kWorkGroups[i % 4]);
    }
}

void medium_size(Step& step, std::mt19937& rng) {
  const int cases = static_cast<int>(std::size(kWidths));
  int i = 0;
  for (int w : kWidths) {
    ++i;
    check_case(step, configs_for_case(configurations(step), i, cases), conv::test::random_image(600, 400, rng),
               filter_for(w, rng), i % 2 ? Border::clamp : Border::zero, kWorkGroups[(i + 1) % 4]);
  }
}

void large_size(Step& step, std::mt19937& rng) {
  const int widths[] = {1, 4, -1, 13};
  int i = 0;
  for (int w : widths) {
    ++i;
    check_case(step, configs_for_case(configurations(step), i, 4), conv::test::random_image(1919, 1079, rng),
               filter_for(w, rng), i % 2 ? Border::zero : Border::clamp, kWorkGroups[(i + 2) % 4]);
  }
}

void huge_size(Step& step, std::mt19937& rng) {
  const Image img = conv::test::random_image(4096, 4096, rng);
  check_case(step, {configurations(step).back()}, img, filter_for(3, rng), Border::clamp, {16, 16});
}

void shapes_and_borders(Step& step, std::mt19937& rng) {
  const auto configs = configurations(step);
  int i = 0;
  for (Shape size : {Shape{17, 33}, Shape{600, 400}})
    for (Shape wg : kWorkGroups)
      for (Border b : {Border::zero, Border::clamp})
        check_case(step, {configs[i++ % configs.size()]}, conv::test::random_image(size.x, size.y, rng),
                   filter_for(5, rng), b, wg);
}

// A step that computes another sum (separable terms, a transform) meets the
// impulse within its own error bound. Its outputs whose exact value is 0 are
// checked like every other (against its bound, not hidden), and counted.
void inexact_impulse(Step& step, const Problem& problem, const RunResult& r) {
  const Reference reference = reference_correlate(problem.padded, problem.filter);
  const Comparison cmp = step.compare(r.output, problem, reference);
  long long zeros = 0, nonzero = 0;
  double worst_zero = 0;
  for (std::size_t i = 0; i < reference.value.size(); ++i) {
    if (reference.value[i] != 0.0) continue;
    ++zeros;
    const double v = std::fabs(r.output.pixels[i]);
    if (v != 0.0) ++nonzero;
    worst_zero = std::isfinite(v) ? std::max(worst_zero, v) : INFINITY;
  }
  INFO(cmp.describe() << "; " << nonzero << " of " << zeros
                      << " exact zeros came out non-zero, the largest " << worst_zero);
  CHECK(cmp.passed());
}

// A single 1 in a field of 0s: the output around it is the filter, rotated
// by 180 degrees (correlation), exactly: every other term is 0 * w. A step
// that applies a bank of filters (step 6's --bank) returns a plane per
// filter, one under another (Step::plane_filters): each holds its own.
void impulse(Step& step, std::mt19937& rng) {
  int i = 0;
  for (int w : {1, 2, 3, 4, 7, 8, 16, 17})
    for (const auto& config : configs_for_case(configurations(step), i++, 8)) {
      const Filter f = filter_for(w, rng);
      const int size = 2 * w + 5, px = size / 2, py = size / 2 - 1;
      Image img(size, size + 3, 0.0f);
      img.at(px, py) = 1.0f;
      const RunOptions options = options_for(step, config);
      const Problem problem = make_problem(img, f, Border::zero);
      INFO(step.name() << " " << step.describe(options) << kernel_note(options)
                       << ", filter width " << w << "; " << conv::test::seed_note());
      RunResult r;
      if (!run_case(step, problem, options, r)) continue;
      if (!step.exact_sums()) {
        inexact_impulse(step, problem, r);
        continue;
      }
      REQUIRE(r.output.height == problem.out_height());
      const std::string wrong = impulse_report(r.output, problem.filter, px, py);
      INFO(wrong);
      CHECK(wrong.empty());
    }
}

// A constant image with the clamp border: every output is c * sum(weights)
// (of its plane's filter, for a bank).
void constant(Step& step, std::mt19937& rng) {
  int i = 0;
  for (int w : {1, 3, 6, 7, 16, 31})
    for (const auto& config : configs_for_case(configurations(step), i++, 6)) {
      const Filter f = filter_for(w, rng);
      const float c = std::uniform_real_distribution<float>(0.25f, 1.0f)(rng);
      Image img(45, 37, c);
      const RunOptions options = options_for(step, config);
      const Problem problem = make_problem(img, f, Border::clamp);
      INFO(step.name() << " " << step.describe(options) << kernel_note(options)
                       << ", filter width " << w << ", c = " << c << "; " << conv::test::seed_note());
      RunResult r;
      if (!run_case(step, problem, options, r)) continue;
      if (!step.exact_sums()) {  // its own bound, against the exact answer
        const Comparison cmp =
            step.compare(r.output, problem, reference_correlate(problem.padded, f));
        INFO(cmp.describe());
        CHECK(cmp.passed());
        continue;
      }
      const std::vector<Filter> planes = {problem.filter};
      REQUIRE(r.output.height == problem.out_height() * static_cast<int>(planes.size()));
      const std::size_t plane_pixels = r.output.pixels.size() / planes.size();
      for (std::size_t k = 0; k < planes.size(); ++k) {
        double abs_sum = 0;
        for (float v : planes[k].weights) abs_sum += std::fabs(v) * c;
        const double expected = planes[k].sum() * c, tolerance = w * w * 1.2e-7 * abs_sum + 1e-30;
        double worst = 0;
        for (std::size_t i = k * plane_pixels; i < (k + 1) * plane_pixels; ++i) {
          const float v = r.output.pixels[i];
          worst = std::isfinite(v) ? std::max(worst, std::fabs(v - expected)) : INFINITY;
        }
        INFO("plane " << k << " of " << planes.size() << ": worst deviation " << worst << ", tolerance "
                      << tolerance);
        CHECK(worst <= tolerance);
      }
    }
}

struct Group {
  const char* title;
  Body body;
};
const Group kGroups[] = {
    {conformance::kSmallSizes, small_sizes},
    {conformance::kMediumSize, medium_size},
    {conformance::kLargeSize, large_size},
    {conformance::kHugeSize, huge_size},
    {conformance::kShapesAndBorders, shapes_and_borders},
    {conformance::kImpulse, impulse},
    {conformance::kConstant, constant},
};

struct GroupInvoker : Catch::ITestInvoker {
  std::string step_name;
  const Group* group;
  GroupInvoker(std::string s, const Group* g) : step_name(std::move(s)), group(g) {}
  void invoke() const override {
    auto step = find_step(step_name);
    // A seed per case, derived from the run's seed, so cases are independent.
    std::seed_seq seq{conv::test::run_seed(), static_cast<std::uint32_t>(std::hash<std::string>{}(
                                                   step_name + group->title))};
    std::mt19937 rng(seq);
    group->body(*step, rng);
  }
};

void register_cases() {
  static std::deque<std::string> names;  // Catch keeps StringRefs to these
  for (const auto& step : all_steps())
    for (const auto& group : kGroups) {
      names.push_back(step->name() + ": " + group.title);
      const std::string& name = names.back();
      names.push_back("[conformance][" + step->name() + "]");
      const std::string& tags = names.back();
#if CLCONV_CATCH2_MAJOR >= 3
      Catch::AutoReg(Catch::Detail::unique_ptr<Catch::ITestInvoker>(new GroupInvoker(step->name(), &group)),
                     CATCH_INTERNAL_LINEINFO, Catch::StringRef(), Catch::NameAndTags{name, tags});
#else
      Catch::AutoReg(new GroupInvoker(step->name(), &group), CATCH_INTERNAL_LINEINFO,
                     Catch::StringRef(), Catch::NameAndTags{name, tags});
#endif
    }
}

}  // namespace

int main(int argc, char** argv) {
  register_cases();
  return Catch::Session().run(argc, argv);
}
