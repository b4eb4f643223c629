#include "coursework/cases.hpp"
#include "coursework/impulse_report.hpp"

#include <cmath>
#include <cstring>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <random>
#include <sstream>

#include "common/core/program.hpp"
#include "common/machinery/conformance_cases.hpp"
#include "common/machinery/device_choice.hpp"
#include "common/machinery/files.hpp"
#include "common/machinery/guard.hpp"
#include "common/machinery/program_cache.hpp"
#include "common/machinery/random_inputs.hpp"
#include "common/machinery/reference.hpp"
#include "common/machinery/registry.hpp"
#include "common/machinery/report.hpp"
#include "common/machinery/settings.hpp"

namespace conv::grade {

namespace {

struct Shape {
  int x, y;
};
// As in tests/conformance.cpp.
const Shape kWorkGroups[] = {{8, 8}, {16, 16}, {32, 8}, {8, 32}};
const int kWidths[] = {1, 2, 3, 4, 5, 7, 8, 13, 16, 17, 31, -1};  // -1: motion45

Filter filter_for(int width, std::mt19937& rng) {
  return width < 0 ? parse_filter_spec("motion45") : random_filter(width, rng);
}

// The first configuration always, and one of the others in turn.
std::vector<int> configs_for_case(int count, int i) {
  if (count == 1) return {0};
  return {0, 1 + i % (count - 1)};
}

// A run of the reference check; the image is drawn before the filter.
Run drawn(int config, Shape size, int width, Border border, Shape wg, std::mt19937& rng) {
  Run r;
  r.config = config;
  r.image = random_image(size.x, size.y, rng);
  r.filter = filter_for(width, rng);
  r.border = border;
  r.wg_x = wg.x;
  r.wg_y = wg.y;
  return r;
}

using Body = std::function<void(const Step&, int configs, std::mt19937&, std::vector<Run>&)>;

void small_sizes(const Step&, int n, std::mt19937& rng, std::vector<Run>& runs) {
  const Shape sizes[] = {{1, 1}, {3, 2}, {16, 16}, {17, 33}};
  int i = 0;
  for (Shape s : sizes)
    for (int w : kWidths) {
      ++i;
      for (int c : configs_for_case(n, i))
        runs.push_back(drawn(c, s, w, i % 2 ? Border::zero : Border::clamp, kWorkGroups[i % 4], rng));
    }
}

void medium_size(const Step&, int n, std::mt19937& rng, std::vector<Run>& runs) {
  int i = 0;
  for (int w : kWidths) {
    ++i;
    for (int c : configs_for_case(n, i))
      runs.push_back(drawn(c, {600, 400}, w, i % 2 ? Border::clamp : Border::zero, kWorkGroups[(i + 1) % 4], rng));
  }
}

void large_size(const Step&, int n, std::mt19937& rng, std::vector<Run>& runs) {
  int i = 0;
  for (int w : {1, 4, -1, 13}) {
    ++i;
    for (int c : configs_for_case(n, i))
      runs.push_back(drawn(c, {1919, 1079}, w, i % 2 ? Border::zero : Border::clamp, kWorkGroups[(i + 2) % 4], rng));
  }
}

void huge_size(const Step&, int n, std::mt19937& rng, std::vector<Run>& runs) {
  runs.push_back(drawn(n - 1, {4096, 4096}, 3, Border::clamp, {16, 16}, rng));
}

void shapes_and_borders(const Step&, int n, std::mt19937& rng, std::vector<Run>& runs) {
  int i = 0;
  for (Shape size : {Shape{17, 33}, Shape{600, 400}})
    for (Shape wg : kWorkGroups)
      for (Border b : {Border::zero, Border::clamp}) runs.push_back(drawn(i++ % n, size, 5, b, wg, rng));
}

// A single 1 in a field of 0s gives back the filter, rotated.
void impulse(const Step& step, int n, std::mt19937& rng, std::vector<Run>& runs) {
  int i = 0;
  for (int w : {1, 2, 3, 4, 7, 8, 16, 17})
    for (int c : configs_for_case(n, i++)) {
      Run r;
      r.config = c;
      r.filter = filter_for(w, rng);
      const int size = 2 * w + 5;
      r.impulse_x = size / 2;
      r.impulse_y = size / 2 - 1;
      r.image = Image(size, size + 3, 0.0f);
      r.image.at(r.impulse_x, r.impulse_y) = 1.0f;
      r.check = step.exact_sums() ? Run::Check::impulse : Run::Check::reference;
      runs.push_back(std::move(r));
    }
}

// A constant image with the clamp border gives c * sum(weights).
void constant(const Step& step, int n, std::mt19937& rng, std::vector<Run>& runs) {
  int i = 0;
  for (int w : {1, 3, 6, 7, 16, 31})
    for (int c : configs_for_case(n, i++)) {
      Run r;
      r.config = c;
      r.filter = filter_for(w, rng);
      r.constant = std::uniform_real_distribution<float>(0.25f, 1.0f)(rng);
      r.image = Image(45, 37, r.constant);
      r.border = Border::clamp;
      r.check = step.exact_sums() ? Run::Check::constant : Run::Check::reference;
      runs.push_back(std::move(r));
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

RunOptions options_of(const Step& step, const Run& run) {
  RunOptions options = suite_configurations(step, true).at(static_cast<std::size_t>(run.config));
  options.wg_x = run.wg_x;
  options.wg_y = run.wg_y;
  return options;
}

void write_bytes(const std::string& path, const std::vector<std::uint8_t>& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  if (!out.flush()) throw Error(path + ": cannot write it");
}

std::vector<std::uint8_t> read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::vector<std::uint8_t>(std::istreambuf_iterator<char>(in), {});
}

Image filter_image(const Filter& f) {
  Image img(f.width, f.width);
  img.pixels = f.weights;
  return img;
}

std::string number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.9g", v);
  return buf;
}

std::string check_impulse(const Step&, const Run& run, const Problem& problem, const Image& out) {
  if (out.height != problem.out_height()) return "the output has " + std::to_string(out.height) + " rows, not " +
                                                 std::to_string(problem.out_height());
  return impulse_report(out, problem.filter, run.impulse_x, run.impulse_y);
}

std::string check_constant(const Step& step, const Run& run, const Problem& problem, const Image& out) {
  const RunOptions options = options_of(step, run);
  const std::vector<Filter> planes = {problem.filter};
  const std::size_t plane_pixels = out.pixels.size() / planes.size();
  const double c = run.constant, w = run.filter.width;
  for (std::size_t k = 0; k < planes.size(); ++k) {
    double abs_sum = 0;
    for (float v : planes[k].weights) abs_sum += std::fabs(v) * c;
    const double expected = planes[k].sum() * c, tolerance = w * w * 1.2e-7 * abs_sum + 1e-30;
    double worst = 0;
    std::size_t at = 0;
    for (std::size_t i = k * plane_pixels; i < (k + 1) * plane_pixels; ++i) {
      const float v = out.pixels[i];
      const double d = std::isfinite(v) ? std::fabs(v - expected) : INFINITY;
      if (d > worst) worst = d, at = i - k * plane_pixels;
    }
    if (worst > tolerance)
      return "a constant " + number(c) + " should give " + number(expected) + " everywhere; worst at (" +
             std::to_string(at % out.width) + ", " + std::to_string(at / out.width) + "), off by " +
             number(worst) + " (tolerance " + number(tolerance) + ")" +
             (planes.size() > 1 ? ", plane " + std::to_string(k) : "");
  }
  return "";
}

}  // namespace

std::vector<Case> make_cases(const Step& step, std::uint32_t seed) {
  const int configs = static_cast<int>(suite_configurations(step, true).size());
  if (configs == 0) throw Error(step.name() + " has no configuration that builds a kernel file");
  std::vector<Case> cases;
  for (const auto& group : kGroups) {
    // A seed per case, derived from the run's seed, as the suite does.
    std::seed_seq seq{seed, static_cast<std::uint32_t>(std::hash<std::string>{}(step.name() + group.title))};
    std::mt19937 rng(seq);
    Case c;
    c.title = group.title;
    group.body(step, configs, rng, c.runs);
    cases.push_back(std::move(c));
  }
  return cases;
}

std::string output_file(const std::string& folder, std::size_t k) {
  return folder + "/run-" + std::to_string(k) + ".pfm";
}
std::string build_note_file(const std::string& folder, std::size_t k) {
  return folder + "/run-" + std::to_string(k) + ".build-log";
}
std::string fault_note_file(const std::string& folder, std::size_t k) {
  return folder + "/run-" + std::to_string(k) + ".fault";
}

void write_case_inputs(const Case& c, const std::string& folder) {
  std::ostringstream manifest;
  for (std::size_t k = 0; k < c.runs.size(); ++k) {
    const Run& r = c.runs[k];
    const std::string image = "image-" + std::to_string(k) + ".pfm", filter = "filter-" + std::to_string(k) + ".pfm";
    write_bytes(folder + "/" + image, encode_pfm(r.image));
    write_bytes(folder + "/" + filter, encode_pfm(filter_image(r.filter)));
    manifest << r.config << ' ' << r.wg_x << ' ' << r.wg_y << ' ' << border_name(r.border) << ' '
             << image << ' ' << filter << ' ' << r.filter.name << '\n';
  }
  const std::string text = manifest.str();
  write_bytes(folder + "/manifest", std::vector<std::uint8_t>(text.begin(), text.end()));
}

std::string run_label(const Step& step, const Run& run) {
  const std::string wg = run.wg_x == 0 ? "auto" : std::to_string(run.wg_x) + "x" + std::to_string(run.wg_y);
  return std::to_string(run.image.width) + "x" + std::to_string(run.image.height) + ", filter " +
         run.filter.name + ", border " + border_name(run.border) + ", wg " + wg + ", variant " +
         step.describe(options_of(step, run));
}

std::string check_output(const Step& step, const Run& run, const Image& output) {
  const Problem problem = make_problem(run.image, run.filter, run.border);
  const int planes = 1;
  if (output.width != problem.out_width() || output.height != problem.out_height() * planes)
    return "the result is " + std::to_string(output.width) + "x" + std::to_string(output.height) + ", not " +
           std::to_string(problem.out_width()) + "x" + std::to_string(problem.out_height() * planes);
  try {
    check_result(output);  // pixels never written, NaN or infinite
  } catch (const KernelFault& e) {
    return e.what();
  }
  if (run.check == Run::Check::impulse) return check_impulse(step, run, problem, output);
  if (run.check == Run::Check::constant) return check_constant(step, run, problem, output);
  const Comparison cmp =
      run.reference ? step.compare(output, problem, *run.reference)
                    : step.compare(output, problem, reference_correlate(problem.padded, run.filter));
  return cmp.passed() ? "" : cmp.describe();
}

namespace {

// One line of a manifest: the step's configuration with the kernel file's
// source, the work-group (0x0: the step's own default for the filter) and
// the problem. Error for a line that is not a run.
struct ManifestRun {
  RunOptions options;
  Problem problem;
};

ManifestRun manifest_run(const Step& step, const std::vector<RunOptions>& configs, const std::string& manifest,
                         const std::string& line, std::size_t k, const std::string& source,
                         const std::string& label) {
  const std::string dir = manifest.substr(0, manifest.rfind('/') + 1);
  std::istringstream fields(line);
  std::size_t config = 0;
  std::string border, image_file, filter_file, filter_name;
  RunOptions options;
  if (!(fields >> config >> options.wg_x >> options.wg_y >> border >> image_file >> filter_file >> filter_name) ||
      config >= configs.size())
    throw Error(manifest + ": line " + std::to_string(k + 1) + " is not a run");
  const auto wg = std::make_pair(options.wg_x, options.wg_y);
  options = configs[config];
  std::tie(options.wg_x, options.wg_y) = wg;
  options.kernel_source = source;
  options.kernel_label = label;
  const Image image = decode_pfm(read_bytes(dir + image_file), image_file);
  const Image weights = decode_pfm(read_bytes(dir + filter_file), filter_file);
  Filter filter;
  filter.width = weights.width;
  filter.weights = weights.pixels;
  filter.name = filter_name;
  if (options.wg_x == 0 || options.wg_y == 0)
    std::tie(options.wg_x, options.wg_y) = step.default_work_group(environment_device().facts(), filter, options);
  return {options, make_problem(image, filter, parse_border(border))};
}

std::vector<std::string> manifest_lines(const std::string& manifest) {
  std::ifstream in(manifest);
  if (!in) throw Error(manifest + ": cannot read it");
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

}  // namespace

void run_manifest(const std::string& step_name, const std::string& manifest,
                  const std::string& kernel_file, const std::string& label,
                  const std::string& out_folder) {
  const auto step = find_step(step_name);
  const auto configs = suite_configurations(*step, true);
  const std::string source = read_text_file(kernel_file);
  std::filesystem::create_directories(out_folder);
  const auto lines = manifest_lines(manifest);
  for (std::size_t k = 0; k < lines.size(); ++k) {
    const ManifestRun run = manifest_run(*step, configs, manifest, lines[k], k, source, label);
    try {
      const RunResult result = run_step(*step, environment_device(), run.problem, run.options, 0);
      write_bytes(output_file(out_folder, k), encode_pfm(result.output));
    } catch (const BuildError& e) {
      std::ofstream(build_note_file(out_folder, k)) << e.what();
      return;
    } catch (const cl::Error& e) {
      // A call the driver failed while the kernel ran or was waited for:
      // on a GPU, where no signal ends the process, most often a read or a
      // write outside the buffers (NVIDIA's driver fails the launch).
      const std::string call = e.what();
      const bool after_launch = call.find("Wait") != std::string::npos || call.find("Finish") != std::string::npos ||
                                call.find("Read") != std::string::npos;
      std::ofstream(fault_note_file(out_folder, k))
          << "the device failed the run (" << call << ": " << cl_error_name(e.err()) << ")"
          << (after_launch ? ": on a GPU most often a read or a write outside the kernel's buffers" : "");
      return;
    } catch (const std::exception& e) {  // a kernel fault, a limit of the device
      std::ofstream(fault_note_file(out_folder, k)) << e.what();
      return;
    }
  }
}

std::string times_file(const std::string& folder) { return folder + "/run-0.times"; }

void time_manifest(const std::string& step_name, const std::string& manifest, const std::string& kernel_file,
                   const std::string& label, const std::string& out_folder, int reps) {
  const auto step = find_step(step_name);
  const auto configs = suite_configurations(*step, true);
  const std::string source = read_text_file(kernel_file);
  std::filesystem::create_directories(out_folder);
  const auto lines = manifest_lines(manifest);
  if (lines.empty()) throw Error(manifest + ": no run in it");
  const ManifestRun run = manifest_run(*step, configs, manifest, lines.front(), 0, source, label);
  try {
    DeviceContext& device = environment_device();
    check_work_group_shape(device, run.options.wg_x, run.options.wg_y);
    Launch launch = step->prepare(device, run.problem, run.options);
    const PhaseScope running(KernelPhase::running);
    // The first launch is the checked one, into poisoned outputs; every
    // timed launch after it is poisoned again and must write the same
    // result, so that no launch is timed that skipped its work.
    launch.poison_outputs();
    launch.run().wait();
    launch.check_guards();
    const Image first = launch.read();
    if (first.width != run.problem.out_width() || first.height != run.problem.out_height())
      throw Error(step->name() + ": the launch read back " + std::to_string(first.width) + "x" +
                  std::to_string(first.height) + ", not " + std::to_string(run.problem.out_width()) + "x" +
                  std::to_string(run.problem.out_height()));
    check_result(first);
    std::ostringstream times;
    times.precision(9);
    for (int r = 1; r <= reps; ++r) {
      launch.poison_outputs();
      const cl::Event done = launch.run();
      done.wait();
      const double ms = launch.elapsed(done);
      const Image again = launch.read();
      if (again.pixels.size() != first.pixels.size() ||
          std::memcmp(again.pixels.data(), first.pixels.data(), first.pixels.size() * sizeof(float)) != 0)
        throw KernelFault("timed launch " + std::to_string(r) + " of " + std::to_string(reps) +
                          " wrote a result other than the first launch's (a kernel must do the same work "
                          "every time it is launched)");
      times << ms << '\n';
    }
    launch.check_guards();
    write_bytes(output_file(out_folder, 0), encode_pfm(first));
    const std::string text = times.str();
    write_bytes(times_file(out_folder), std::vector<std::uint8_t>(text.begin(), text.end()));
  } catch (const BuildError& e) {
    std::ofstream(build_note_file(out_folder, 0)) << e.what();
  } catch (const std::exception& e) {  // a kernel fault, a limit of the device
    std::ofstream(fault_note_file(out_folder, 0)) << e.what();
  }
}

}  // namespace conv::grade
