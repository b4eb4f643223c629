// Step 2's launcher: as step 1, but the filter must fit in the device's
// constant memory, which is checked before anything runs.
#include "common/step.hpp"

namespace conv {
namespace embedded {
extern const char* const step2_constant_kernel;
}

namespace {

class ConstantStep : public Step {
 public:
  std::string name() const override { return "step2-constant"; }
  std::string summary() const override {
    return "the filter in __constant memory, cached and broadcast to the work-group";
  }
  std::string embedded_source() const override { return embedded::step2_constant_kernel; }

  std::unique_ptr<Launch> prepare(DeviceContext& device, const Problem& problem,
                                  const RunOptions& options) override {
    check_constant_filter(device, problem.filter);
    auto launch = std::make_unique<BufferLaunch>(device, problem);
    cl::Program program = device.program(source(options), "", label(options));
    launch->kernel = make_kernel(program, "convolve", label(options));
    launch->set_standard_args(problem);
    launch->set_ranges(device, options.wg_x, options.wg_y);
    return launch;
  }
};

}  // namespace

std::unique_ptr<Step> make_step2_constant() { return std::make_unique<ConstantStep>(); }

}  // namespace conv
