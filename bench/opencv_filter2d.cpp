// opencv-filter2d: the tool a C++ programmer would reach for instead of the
// steps, cv::filter2D on the CPU (and cv::sepFilter2D, a row pass and a
// column pass, for the filters that are separable: box, gaussian), timed on the same inputs as `sweep` and
// checked against the same serial reference. One CSV row per image and
// filter, in the columns every tool shares, so that its rows can sit in the
// same file as a sweep's (bench/results.sh appends them).
//
// Same problem as the steps: a float32 image (CV_32F), a correlation (which
// is what filter2D computes), the anchor at F/2 (filter2D's default), and the
// border as our padding makes it: `zero` is BORDER_CONSTANT (zeros), `clamp`
// is BORDER_REPLICATE. Built only when CMake finds OpenCV (bench/opencv.cmake).
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>
#include <thread>

#include <opencv2/core.hpp>
#include <opencv2/core/ocl.hpp>
#include <opencv2/imgproc.hpp>

#include "common/machinery/cli.hpp"
#include "common/core/errors.hpp"
#include "common/machinery/roofline.hpp"
#include "common/machinery/parse.hpp"
#include "common/machinery/reference.hpp"
#include "common/machinery/report.hpp"
#include "step8-separable/decompose.hpp"

using namespace conv;

namespace {

// "600x400" is shorthand for "synthetic:600x400", as in sweep.
std::string image_spec(const std::string& item) {
  if (item.find(':') == std::string::npos && item.find_first_of("xX") != std::string::npos &&
      item.find('.') == std::string::npos && item.find('/') == std::string::npos)
    return "synthetic:" + item;
  return item;
}

// The CPU's model name, as /proc/cpuinfo has it ("" where there is none).
std::string cpu_name() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("model name", 0) == 0) {
      auto colon = line.find(':');
      if (colon == std::string::npos) break;
      auto start = line.find_first_not_of(" \t", colon + 1);
      return start == std::string::npos ? "" : line.substr(start);
    }
  return "";
}

}  // namespace

int main(int argc, char** argv) {
  return guarded_main("opencv-filter2d", [&]() -> int {
    CLI::App app(
        "opencv-filter2d: time cv::filter2D (and cv::sepFilter2D for separable filters; CV_32F, on the CPU) on the same images and filters as "
        "sweep, check it against the serial reference, print CSV rows in the shared columns",
        "opencv-filter2d");
    DeviceOptions device_options;
    device_options.choice.type = "cpu";
    std::string images_text = "2048x2048", filters_text = "motion45", border_text = "zero";
    std::string threads_text;
    int reps = 10;
    bool no_header = false, no_limits = false;
    app.add_option("--images", images_text,
                   "Images: WxH (synthetic), synthetic:WxH[:SEED] or files, comma-separated")
        ->capture_default_str();
    app.add_option("--filters", filters_text, "Filter specs, comma-separated: " + filter_spec_help())
        ->capture_default_str();
    app.add_option("--border", border_text, "zero (BORDER_CONSTANT) or clamp (BORDER_REPLICATE)")
        ->capture_default_str();
    app.add_option("--reps", reps, "Timed calls per image and filter, after one untimed call")
        ->capture_default_str()
        ->check(CLI::Range(1, 100000));
    app.add_option("--threads", threads_text,
                   "cv::setNumThreads values to run, comma-separated (default: one per hardware thread)");
    app.add_flag("--no-header", no_header, "Rows only, to append to another tool's CSV");
    app.add_flag("--no-limits", no_limits,
                 "Leave % of limit empty instead of taking the limits measured on the OpenCL CPU "
                 "device (the same cores; chosen with the device options, default --device-type cpu)");
    add_device_options(app, device_options);
    if (int rc = parse_command_line(app, argc, argv); rc >= 0) return rc;

    const Border border = parse_border(border_text);
    std::vector<Filter> filters;
    for (const auto& f : split_list(filters_text)) filters.push_back(parse_filter_spec(f));
    const auto image_items = split_list(images_text);
    if (image_items.empty() || filters.empty()) throw UsageError("--images and --filters need one item each");

    cv::ocl::setUseOpenCL(false);  // cv::Mat already runs on the CPU; make sure of it
    std::vector<int> thread_counts;
    for (const auto& t : split_list(threads_text)) thread_counts.push_back(parse_positive_int(t, "--threads", 1024));
    if (thread_counts.empty())
      thread_counts.push_back(static_cast<int>(std::max(1u, std::thread::hardware_concurrency())));

    // The roofline needs the CPU's copy bandwidth and FMA rate: the ones the
    // harness measured on the OpenCL CPU device (cached), if there is one.
    DeviceLimits limits;
    if (!no_limits) {
      try {
        DeviceContext device(device_options.choice);
        std::cerr << "opencv-filter2d: limits of " << device.facts().name << "\n";
        limits = device_limits(device, false);
      } catch (const std::exception& e) {
        std::cerr << "opencv-filter2d: no OpenCL CPU device for the limits (" << e.what()
                  << "); % of limit left empty\n";
      }
    }

    DeviceFacts facts;
    facts.name = cpu_name();
    if (facts.name.empty()) facts.name = "CPU";
    facts.driver = "OpenCV " + std::string(CV_VERSION);
    const int cv_border = border == Border::zero ? cv::BORDER_CONSTANT : cv::BORDER_REPLICATE;

    if (!no_header) write_csv_header(std::cout);
    int wrong = 0;
    for (const auto& item : image_items) {
      const Image image = load_image_spec(image_spec(item));
      cv::Mat src(image.height, image.width, CV_32F, const_cast<float*>(image.pixels.data()));
      for (const auto& filter : filters) {
        const Problem problem = make_problem(image, filter, border);
        const Reference reference = reference_correlate(problem.padded, filter);
        cv::Mat kernel(filter.width, filter.width, CV_32F, const_cast<float*>(filter.weights.data()));
        const cv::Point anchor(filter.width / 2, filter.width / 2);
        // A rank-1 filter also goes through cv::sepFilter2D, with the row and
        // column factors step 8 finds (and checked against step 8's bound).
        const SeparableFilter terms = separate(filter);
        std::vector<std::string> functions = {"opencv.filter2D"};
        if (terms.rank == 1) functions.push_back("opencv.sepFilter2D");
        cv::Mat row_kernel(1, filter.width, CV_32F, const_cast<float*>(terms.rows[0].data()));
        cv::Mat column_kernel(filter.width, 1, CV_32F, const_cast<float*>(terms.columns[0].data()));
        for (const auto& function : functions)
        for (int threads : thread_counts) {
          cv::setNumThreads(threads);
          const std::string variant = "threads=" + std::to_string(cv::getNumThreads());
          std::cerr << "opencv-filter2d: " << function << ", " << image.width << "x" << image.height
                    << ", " << filter.name << ", " << variant << "\n";
          Image out(image.width, image.height);
          cv::Mat dst(out.height, out.width, CV_32F, out.pixels.data());
          const bool separable = function == "opencv.sepFilter2D";
          auto call = [&] {
            if (separable)
              cv::sepFilter2D(src, dst, CV_32F, row_kernel, column_kernel, anchor, 0.0, cv_border);
            else
              cv::filter2D(src, dst, CV_32F, kernel, anchor, 0.0, cv_border);
          };
          call();  // untimed: allocations, and the result that is checked
          if (dst.data != reinterpret_cast<uchar*>(out.pixels.data()))
            throw Error("cv::" + function.substr(7) + " reallocated its output");
          const auto cmp = separable ? compare_separable(out, problem.padded, terms, reference)
                                     : compare_with_reference(out, reference, filter.width);
          const Stats stats = time_host(call, reps);

          Row row = problem_row(facts, function, variant, problem);
          fill_metrics(row, stats, static_cast<long long>(problem.padded.pixels.size()));
          const double outputs = static_cast<double>(row.width) * row.height;
          const double flops = 2.0 * filter.width * filter.width * outputs;
          const double bytes = 4.0 * (static_cast<double>(problem.padded.pixels.size()) + outputs);
          if (limits.copy_gbps > 0) {
            const auto share = roofline_share(limits, flops, bytes, stats.median_ms);
            row.pct_limit = share.percent;
            row.limit = share.limit;
          }
          row.max_abs_err = cmp.max_abs_err;
          row.max_rel_err = cmp.max_rel_err;
          if (!cmp.passed()) {
            // Reported, not fatal: for large kernels filter2D goes through a
            // DFT, whose rounding is not bounded per pixel like a direct sum.
            std::cerr << "opencv-filter2d: outside the direct-sum tolerance: " << cmp.describe() << "\n";
            ++wrong;
          }
          write_csv_row(std::cout, row);
          std::cout.flush();
        }
      }
    }
    if (wrong) std::cerr << "opencv-filter2d: " << wrong << " result(s) outside the tolerance\n";
    return 0;
  });
}
