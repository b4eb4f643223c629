// Step 4's launcher: as step 3; the variant picks the build options, and the
// harness keeps one built program per (variant, width), so a sweep over
// widths builds each once.
#include "common/step.hpp"

namespace conv {
namespace embedded {
extern const char* const step4_unroll_kernel;
}

namespace {

class UnrollStep : public Step {
 public:
  std::string name() const override { return "step4-unroll"; }
  std::string summary() const override {
    return "step 3 with the inner loop unrolled: remainder loop, if-else remainder, or a "
           "compile-time width";
  }
  std::vector<std::string> variants() const override { return {"loop4", "ifelse", "fixed"}; }
  std::string embedded_source() const override { return embedded::step4_unroll_kernel; }

  std::unique_ptr<Launch> prepare(DeviceContext& device, const Problem& problem,
                                  const RunOptions& options) override {
    check_constant_filter(device, problem.filter);
    auto launch = std::make_unique<BufferLaunch>(device, problem);
    const std::string v = variant(options);
    const std::string build_options =
        v == "ifelse"  ? "-D REMAINDER_IFELSE"
        : v == "fixed" ? "-D FILTER_WIDTH=" + std::to_string(problem.filter.width)
                       : "";
    cl::Program program = device.program(source(options), build_options, label(options));
    launch->kernel = make_kernel(program, "convolve", label(options));
    launch->set_standard_args(problem);
    const int tile_width = options.wg_x + problem.filter.width - 1;
    const int tile_height = options.wg_y + problem.filter.width - 1;
    const std::size_t tile_bytes = sizeof(float) * tile_width * tile_height;
    launch->set_ranges(device, options.wg_x, options.wg_y);
    check_local_memory(device, launch->kernel, tile_bytes,
                       "a " + std::to_string(tile_width) + "x" + std::to_string(tile_height) +
                           " tile (work-group " + launch->work_group() + ", filter " +
                           std::to_string(problem.filter.width) + ")");
    launch->kernel.setArg(7, cl::Local(tile_bytes));
    launch->kernel.setArg(8, tile_width);
    launch->kernel.setArg(9, tile_height);
    return launch;
  }
};

}  // namespace

std::unique_ptr<Step> make_step4_unroll() { return std::make_unique<UnrollStep>(); }

}  // namespace conv
