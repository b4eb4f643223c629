// build/bin/kernel_check: runs every kernel of the registered steps (each
// variant, each choice of each setting) on small awkward problems through
// run_step() and checks every pixel against the reference. Made to run
// under Oclgrind, which checks each memory access
// (tests/reliability/CMakeLists.txt); it works on any device.
#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <iostream>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "common/core/program.hpp"
#include "common/machinery/cli.hpp"
#include "common/machinery/device_choice.hpp"
#include "common/machinery/files.hpp"
#include "common/machinery/guard.hpp"
#include "common/machinery/parse.hpp"
#include "common/machinery/program_cache.hpp"
#include "common/machinery/reference.hpp"
#include "common/machinery/registry.hpp"
#include "common/machinery/report.hpp"
#include "common/machinery/settings.hpp"

namespace {

using namespace conv;

struct Case {
  std::string image, filter, border, wg;
};

// Small, since Oclgrind interprets every instruction: sizes that are no
// multiple of any work-group, odd and even filters, filters wider than the
// block of outputs a work-group computes (17 over an 8x8 group, 31 over a
// 4x2 group even with step 6's 4x4 blocks), one pixel in a mostly idle
// group, an odd group shape.
const std::vector<Case> kCases = {
    {"synthetic:19x13:1", "random:3:1", "zero", "8x8"},
    {"synthetic:19x13:2", "random:17:2", "clamp", "8x8"},
    {"synthetic:40x33:3", "random:4:3", "zero", "16x4"},
    {"synthetic:40x33:4", "random:17:4", "clamp", "8x8"},
    {"synthetic:40x33:5", "random:1:5", "zero", "12x3"},
    {"synthetic:1x1:6", "random:2:6", "clamp", "8x8"},
    {"synthetic:23x9:7", "random:31:7", "zero", "4x2"},
};


// Coursework (docs/coursework.md): CLCONV_KERNEL_STEP<N>=FILE, or --kernel
// FILE with one --step, checks FILE in place of step N's embedded kernel.
// "step3-local" -> "CLCONV_KERNEL_STEP3"; "" for a name without a number.
std::string kernel_variable(const std::string& step_name) {
  std::size_t end = 4;
  while (end < step_name.size() && std::isdigit(static_cast<unsigned char>(step_name[end]))) ++end;
  if (step_name.compare(0, 4, "step") != 0 || end == 4) return "";
  return "CLCONV_KERNEL_STEP" + step_name.substr(4, end - 4);
}

// The file to check for `step` ("" : its embedded kernel), and where it came from.
std::pair<std::string, std::string> student_kernel(const Step& step, const std::string& kernel_file) {
  if (!kernel_file.empty()) return {kernel_file, "--kernel"};
  const std::string variable = kernel_variable(step.name());
  const char* value = variable.empty() ? nullptr : std::getenv(variable.c_str());
  if (!value) return {"", ""};
  if (!*value) throw Error(variable + " is set but empty: name the kernel file to check");
  return {value, variable};
}

// A filter of rank at most `rank` in place of a wider random one: the sum of
// `rank` products of random columns and rows (seeded by the filter's width),
// for a step whose work grows with the rank (step 8 runs a pair of passes per
// term: a random 31 x 31 filter is 62 launches for Oclgrind to interpret).
Filter limit_rank(const Filter& filter, int rank) {
  if (rank <= 0 || filter.width <= rank || filter.name.rfind("random:", 0) != 0) return filter;
  std::mt19937 rng(static_cast<std::uint32_t>(filter.width));
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  const auto F = static_cast<std::size_t>(filter.width);
  Filter low = filter;
  low.name = filter.name + " of rank " + std::to_string(rank);
  std::fill(low.weights.begin(), low.weights.end(), 0.0f);
  for (int t = 0; t < rank; ++t) {
    std::vector<float> column(F), row(F);
    for (auto& v : column) v = dist(rng);
    for (auto& v : row) v = dist(rng);
    for (std::size_t r = 0; r < F; ++r)
      for (std::size_t c = 0; c < F; ++c) low.weights[r * F + c] += column[r] * row[c];
  }
  return low;
}

enum class Outcome { passed, refused, failed };

// Runs one case and prints one line. A limit the harness checks before any
// launch (a work-group shape the step does not take) is "refused", not a
// failure: it runs no kernel, and the error tests cover it.
Outcome run_case(Step& step, RunOptions options, const Case& c, int max_rank, DeviceContext& device) {
  auto describe = [&](const std::string& filter_name) {
    return step.name() + " " + step.describe(options) + " " + c.image + " " + filter_name + " " + c.border +
           " wg " + c.wg;
  };
  std::string what = describe(c.filter);
  try {
    const Filter filter = limit_rank(parse_filter_spec(c.filter), max_rank);
    what = describe(filter.name);
    const Problem problem = make_problem(load_image_spec(c.image), filter, parse_border(c.border));
    std::tie(options.wg_x, options.wg_y) = parse_size(c.wg, "--wg", 1 << 14);
    const RunResult result = run_step(step, device, problem, options, 0);
    const Comparison cmp =
        step.compare(result.output, problem, reference_correlate(problem.padded, filter));
    (cmp.passed() ? std::cout : std::cerr)
        << what << ": " << (cmp.passed() ? "OK, " : "FAILED, ") << cmp.describe() << std::endl;
    return cmp.passed() ? Outcome::passed : Outcome::failed;
  } catch (const UsageError&) {
    throw;  // a bad --image, --filter or --wg: nothing else can run either
  } catch (const BuildError& e) {
    std::cerr << what << ": FAILED, " << e.what() << std::endl;
  } catch (const KernelFault& e) {  // ran, and wrote nothing, NaN or past the end
    std::cerr << what << ": FAILED, " << e.what() << std::endl;
  } catch (const Error& e) {
    std::cout << what << ": refused, " << e.what() << std::endl;
    return Outcome::refused;
  } catch (const std::exception& e) {
    std::cerr << what << ": FAILED, " << e.what() << std::endl;
  }
  return Outcome::failed;
}

}  // namespace

int main(int argc, char** argv) {
  return guarded_main("kernel_check", [&]() -> int {
    CLI::App app("kernel_check: every registered step's kernels, each variant, on small "
                 "problems, checked against the reference (run it under Oclgrind)",
                 "kernel_check");
    std::string step_name = "all", variant_name = "all", kernel_file;
    Case one;
    bool list = false;
    int max_rank = 0;
    DeviceOptions device_options;
    app.add_option("--step", step_name, "A step by name or number, or all")->capture_default_str();
    app.add_option("--variant", variant_name, "One variant, or all")->capture_default_str();
    app.add_option("--image", one.image, "Run only this image (default: the built-in cases)");
    app.add_option("--filter", one.filter, "Run only this filter");
    app.add_option("--border", one.border, "Run only this border");
    app.add_option("--wg", one.wg, "Run only this work-group shape");
    app.add_option("--kernel", kernel_file,
                   "Check this OpenCL file instead of the step's embedded kernel (with one --step; "
                   "CLCONV_KERNEL_STEP<N>=FILE does the same for step N)");
    app.add_option("--max-rank", max_rank,
                   "Replace each random filter wider than this with one of this rank (0: keep them)")
        ->check(CLI::Range(0, kMaxFilterWidth));
    app.add_flag("--list", list, "Print the steps and variants that would run, then exit");
    add_device_options(app, device_options);
    if (int rc = parse_command_line(app, argc, argv); rc >= 0) return rc;

    std::vector<std::unique_ptr<Step>> steps;
    if (step_name == "all")
      steps = all_steps();
    else
      steps.push_back(find_step(step_name));
    if (!kernel_file.empty() && steps.size() != 1)
      throw UsageError("--kernel " + kernel_file + ": name the one step it replaces with --step N");
    std::vector<Case> cases = kCases;
    if (!one.image.empty() || !one.filter.empty() || !one.border.empty() || !one.wg.empty()) {
      // One case: the first built-in one, with what was given replaced.
      Case c = kCases.front();
      if (!one.image.empty()) c.image = one.image;
      if (!one.filter.empty()) c.filter = one.filter;
      if (!one.border.empty()) c.border = one.border;
      if (!one.wg.empty()) c.wg = one.wg;
      cases = {c};
    }

    std::unique_ptr<DeviceContext> device;
    int ran = 0, failed = 0, unchecked = 0;
    for (auto& step : steps) {
      if (variant_name != "all") {
        RunOptions check;
        check.values["variant"] = variant_name;
        step->variant(check);  // UsageError for an unknown one
      }
      const auto [file, from] = student_kernel(*step, kernel_file);
      std::string source;
      if (!file.empty()) {
        source = read_text_file(file);  // Error naming the file if it cannot be read
        std::cout << step->name() << ": checking " << file << " (" << from
                  << ") instead of the embedded kernel" << std::endl;
      }
      for (auto config : suite_configurations(*step, !source.empty())) {
        if (variant_name != "all" && step->variant(config) != variant_name) continue;
        config.kernel_source = source;
        config.kernel_label = file;
        if (list) {
          std::cout << step->name() << " " << step->describe(config) << "\n";
          continue;
        }
        if (!device) device = std::make_unique<DeviceContext>(device_options.choice);
        int passed = 0;
        for (const auto& c : cases) {
          ++ran;
          const Outcome outcome = run_case(*step, config, c, max_rank, *device);
          passed += outcome == Outcome::passed;
          failed += outcome == Outcome::failed;
        }
        if (passed == 0) {  // every case refused: this kernel was never checked
          std::cerr << step->name() << " " << step->describe(config)
                    << ": FAILED, no case ran its kernel" << std::endl;
          ++unchecked;
        }
      }
    }
    if (list || !device) return 0;
    if (ran == 0) throw UsageError("no configuration of " + step_name + " is the variant " + variant_name);
    std::cout << ran << " cases on " << device->facts().name << ", " << failed << " failed\n";
    if (failed || unchecked)
      throw Error(std::to_string(failed) + " of " + std::to_string(ran) + " cases failed, " +
                  std::to_string(unchecked) + " configurations never ran");
    return 0;
  });
}
