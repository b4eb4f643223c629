#include "common/machinery/cli.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iomanip>
#include <iostream>
#include <new>
#include <sstream>

#include "common/core/errors.hpp"
#include "common/machinery/filter_specs.hpp"

namespace conv {

std::string format_seconds(double s) {
  std::ostringstream text;
  text << std::setprecision(15) << s;  // 1000000, not 1e+06
  return text.str();
}

void add_device_options(CLI::App& app, DeviceOptions& o) {
  app.add_flag_callback(
      "--list-devices",
      [] {
        print_device_list(std::cout);
        throw CLI::Success();  // parse_command_line: exit 0
      },
      "List OpenCL platforms and devices, then exit");
  app.add_option("--platform", o.choice.platform,
                 "Platform by index or name substring (default: any)")
      ->envname("CLCONV_PLATFORM");
  app.add_option("--device", o.choice.device,
                 "Device by index (global, or within --platform) or name substring "
                 "(default: the first GPU, else the first device)")
      ->envname("CLCONV_DEVICE");
  app.add_option("--device-type", o.choice.type, "cpu, gpu or all")
      ->envname("CLCONV_DEVICE_TYPE")
      ->capture_default_str();
}

void add_problem_options(CLI::App& app, ProblemOptions& o) {
  app.add_option("--image", o.image,
                 "Input: a PNG/JPEG/BMP/PGM/PPM/PFM file, or synthetic:WxH[:SEED]")
      ->capture_default_str();
  app.add_option("--filter", o.filter, "Filter: " + filter_spec_help())->capture_default_str();
  app.add_option("--border", o.border, "Border mode: zero or clamp")->capture_default_str();
}

CLI::Validator seconds_limit(double max) {
  return CLI::Validator(
      [max](std::string& text) -> std::string {
        const char* begin = text.c_str();
        char* end = nullptr;
        errno = 0;
        const double v = std::strtod(begin, &end);
        // Digits and at most one point: strtod alone also reads hexadecimal
        // ("0x10"), exponents and "inf".
        const bool decimal = text.find_first_not_of("0123456789.") == std::string::npos &&
                             std::count(text.begin(), text.end(), '.') <= 1;
        if (text.empty() || !decimal || end != begin + text.size() || errno == ERANGE || !std::isfinite(v) ||
            v < 0 || v > max)
          return "expected seconds from 0 to " + format_seconds(max) + ", got '" + text + "'";
        return "";
      },
      "SECONDS");
}

CLI::Validator file_name() {
  return CLI::Validator(
      [](std::string& text) -> std::string { return text.empty() ? "expected a file name, got ''" : ""; }, "FILE");
}

namespace {

// What a run printed must reach its destination: a full disk or a closed
// file under `> out.csv` is a failure, not an exit 0 with an empty file.
// (A program that failed already keeps its own status and message.)
int checked_stdout(const std::string& program, int status) {
  errno = 0;
  std::cout.flush();
  const bool lost = std::cout.fail() || std::fflush(stdout) != 0 || std::ferror(stdout);
  if (!lost || status != 0) return status;
  const int e = errno;
  std::cerr << program << ": standard output: write failed" << (e ? std::string(": ") + std::strerror(e) : "")
            << "\n";
  return 1;
}

}  // namespace

int guarded_main(const std::string& program, const std::function<int()>& body) {
  try {
    return checked_stdout(program, body());
  } catch (const UsageError& e) {
    std::cerr << program << ": " << one_line(e.what()) << " (see --help)\n";
    return 2;
  } catch (const BuildError& e) {  // the compiler's log: its lines are the message
    std::cerr << program << ": " << e.what() << "\n";
    return 1;
  } catch (const cl::Error& e) {
    std::cerr << program << ": OpenCL call " << e.what() << " failed: " << cl_error_name(e.err())
              << "\n";
    return 1;
  } catch (const std::bad_alloc&) {
    std::cerr << program << ": out of host memory\n";
    return 1;
  } catch (const std::exception& e) {
    std::cerr << program << ": " << one_line(e.what()) << "\n";
    return 1;
  } catch (...) {
    std::cerr << program << ": unknown error\n";
    return 1;
  }
}

int parse_command_line(CLI::App& app, int argc, char** argv) {
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    std::cout << app.help();
    return 0;
  } catch (const CLI::CallForAllHelp&) {
    std::cout << app.help("", CLI::AppFormatMode::All);
    return 0;
  } catch (const CLI::Success&) {  // --list-devices, after printing the list
    return 0;
  } catch (const CLI::ParseError& e) {
    std::cerr << app.get_name() << ": " << one_line(e.what()) << " (see --help)\n";
    return 2;
  }
  return -1;
}

}  // namespace conv
