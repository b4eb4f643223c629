// build/bin/histogram: an RGB histogram (3 x 256 bins) of an 8-bit image,
// counted by the variant(s) of the lesson docs/histogram.md.
#include <cstring>
#include <iostream>
#include <map>

#include "common/machinery/cli.hpp"
#include "common/machinery/device_choice.hpp"
#include "common/machinery/guard.hpp"
#include "common/machinery/program_cache.hpp"
#include "common/machinery/reference.hpp"
#include "common/machinery/report.hpp"
#include "common/machinery/settings.hpp"
#include "histogram/app.hpp"
#include "histogram/tuning.hpp"
#include "histogram/variants.hpp"

int main(int argc, char** argv) {
  using namespace conv;
  // With --tune, the harness's tuner over the histogram's space (histogram/tuning.hpp).
  for (int i = 1; i < argc; ++i)
    if (std::strcmp(argv[i], "--tune") == 0) return histogram::tune_main(argc, argv);
  return guarded_main("histogram", [&]() -> int {
    CLI::App app(
        "histogram: an RGB histogram (3 x 256 bins) of an 8-bit image, counted on an "
        "OpenCL device by the variant you choose",
        "histogram");
    histogram::Options o;
    DeviceOptions device;
    app.add_option("--image", o.images,
                   "Input (repeatable): a PNG/JPEG/BMP/PGM/PPM/TGA file, synthetic:WxH[:SEED], "
                   "noise:WxH[:SEED] or solid:WxH[:RRGGBB]")
        ->capture_default_str();
    app.add_option("--variant", o.variants,
                   "Comma-separated variants: " + histogram::variant_list() +
                       ", or all; auto runs the tuned winner for the image's pixel count on this device, else the "
                       "documented defaults, and says which (docs/histogram.md)")
        ->capture_default_str();
    app.add_option("--chunk", o.settings.chunk,
                   "Pixels per work-item (default: auto's, or the variant's: 1024, 128 for local-*, 256 for "
                   "one-launch, loads-ahead and lane-copies)")
        ->check(CLI::Range(1, 1 << 16));
    app.add_option("--wg", o.settings.wg,
                   "Work-items per work-group (default: auto's, or the variant's: 64, or 256 for local-*, "
                   "one-launch, loads-ahead and lane-copies)")
        ->check(CLI::Range(1, 1 << 12));
    const std::map<std::string, histogram::Wait> waits = {{"block", histogram::Wait::block},
                                                          {"spin", histogram::Wait::spin}};
    std::string wait = "block", read = "copy";
    app.add_option("--wait", wait,
                   "How a whole call waits for the counts: block (the driver's wait) or spin "
                   "(asks the read's status until it is done, a core busy meanwhile)")
        ->check(CLI::IsMember({"block", "spin"}))
        ->capture_default_str();
    const std::map<std::string, histogram::ReadBack> reads = {{"copy", histogram::ReadBack::copy},
                                                              {"map", histogram::ReadBack::map}};
    app.add_option("--read", read,
                   "How the 768 counts come back: copy (a read into page-locked memory) or map "
                   "(the counts' buffer allocated in host memory and mapped); the host-merge "
                   "variants always read their partials")
        ->check(CLI::IsMember({"copy", "map"}))
        ->capture_default_str();
    app.add_option("--reps", o.reps, "Timed runs (after one warm-up), or --breakdown rounds")
        ->capture_default_str()
        ->check(CLI::Range(1, 100000));
    app.add_flag("--verify", o.verify,
                 "Compare every variant with the serial count; exit 1 on any difference");
    app.add_option("--output", o.output, "Write the counts as FILE.csv (bin,r,g,b; 256 rows)")->check(file_name());
    app.add_flag("--csv", o.csv, "Print CSV (one header row) instead of a table");
    app.add_flag("--breakdown", o.breakdown,
                 "Time every phase (platform, context, queue, source, cold and warm build, "
                 "buffers, upload, kernels, read-back, merge) over --reps fresh rounds");
    app.add_flag("--limits", o.limits,
                 "Report GB/s as a share of the device's measured copy bandwidth");
    app.add_option("--kernel", o.kernel_file,
                   "Build this OpenCL file instead of the variant's embedded kernel");
    app.add_option("--timeout", o.timeout,
                   "End the run after this many seconds, for a kernel that never returns "
                   "(0: no limit; default: 60 with --kernel, else none)")
        ->check(seconds_limit());
    app.add_flag("--no-binary-cache", o.no_cache,
                 "Always compile from source (also: CLCONV_NO_BINARY_CACHE=1)");
    add_device_options(app, device);
    app.footer(
        "Tuning mode: histogram --tune [--image SPEC] [--budget S] [--reps N] [--small] [--no-store] [--output CSV]\n"
        "  searches this device's fastest variant, chunk and work-group for the image's pixel count and stores\n"
        "  the winner, which --variant auto uses; histogram --tune --help describes each option.");
    if (int rc = parse_command_line(app, argc, argv); rc >= 0) return rc;
    o.device = device.choice;
    o.settings.wait = waits.at(wait);
    o.settings.read = reads.at(read);
    return histogram::run_histogram(o);
  });
}
