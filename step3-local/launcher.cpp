// Step 3's launcher: as step 2, plus the __local tile. Its size depends on
// the work-group and the filter, so it is passed as a kernel argument (a
// size with no data) and checked against the device's local memory.
#include "common/step.hpp"

namespace conv {
namespace embedded {
extern const char* const step3_local_kernel;
}

namespace {

class LocalStep : public Step {
 public:
  std::string name() const override { return "step3-local"; }
  std::string summary() const override {
    return "a work-group tile plus halo cached in __local memory, one barrier";
  }
  std::string embedded_source() const override { return embedded::step3_local_kernel; }

  std::unique_ptr<Launch> prepare(DeviceContext& device, const Problem& problem,
                                  const RunOptions& options) override {
    check_constant_filter(device, problem.filter);
    auto launch = std::make_unique<BufferLaunch>(device, problem);
    cl::Program program = device.program(source(options), "", label(options));
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

std::unique_ptr<Step> make_step3_local() { return std::make_unique<LocalStep>(); }

}  // namespace conv
