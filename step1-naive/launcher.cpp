// Step 1's launcher: buffers as the harness makes them, one work-item per
// output pixel.
#include "common/step.hpp"

namespace conv {
namespace embedded {
extern const char* const step1_naive_kernel;
}

namespace {

class NaiveStep : public Step {
 public:
  std::string name() const override { return "step1-naive"; }
  std::string summary() const override {
    return "one work-item per output pixel, image and filter in global memory";
  }
  std::string embedded_source() const override { return embedded::step1_naive_kernel; }

  std::unique_ptr<Launch> prepare(DeviceContext& device, const Problem& problem,
                                  const RunOptions& options) override {
    auto launch = std::make_unique<BufferLaunch>(device, problem);
    cl::Program program = device.program(source(options), "", label(options));
    launch->kernel = make_kernel(program, "convolve", label(options));
    launch->set_standard_args(problem);
    launch->set_ranges(device, options.wg_x, options.wg_y);
    return launch;
  }
};

}  // namespace

std::unique_ptr<Step> make_step1_naive() { return std::make_unique<NaiveStep>(); }

}  // namespace conv
