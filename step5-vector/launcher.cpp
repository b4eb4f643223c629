// Step 5's launcher: as step 4 ("fixed"), with a pitched device image. Rows
// are padded to 32 floats (128 bytes) with --aligned on, or left at the
// padded image's width with --aligned off; either way the buffer has room
// for whole float4s past the image, so the kernel's copy needs no bounds test.
#include "common/errors.hpp"
#include "common/step.hpp"

namespace conv {
namespace embedded {
extern const char* const step5_vector_kernel;
}

namespace {

std::string wg_complaint(int wg_x) {
  return "--wg: step5-vector copies float4s: the work-group width must be a multiple of 4, not " +
         std::to_string(wg_x);
}

class VectorStep : public Step {
 public:
  std::string name() const override { return "step5-vector"; }
  std::string summary() const override {
    return "the tile copied with float4 loads from a row-aligned device image";
  }
  std::vector<std::string> variants() const override { return {"float4", "scalar"}; }
  // Step 4's "fixed" also has the width as a compile-time constant.
  std::string builds_on() const override { return "fixed"; }
  std::vector<StepSetting> settings() const override {
    return {{"aligned", "Pad device rows to 128 bytes (on) or keep the image's width (off)",
             "on", {"on", "off"}, {}}};
  }
  std::string embedded_source() const override { return embedded::step5_vector_kernel; }
  void check_options(const RunOptions& options) const override {
    Step::check_options(options);
    if (options.wg_x % 4 != 0) throw UsageError(wg_complaint(options.wg_x));
  }

  std::unique_ptr<Launch> prepare(DeviceContext& device, const Problem& problem,
                                  const RunOptions& options) override {
    if (options.wg_x % 4 != 0) throw Error(wg_complaint(options.wg_x));
    check_constant_filter(device, problem.filter);
    const int F = problem.filter.width;
    const bool aligned = setting(options, "aligned") == "on";
    // The groups cover a grid rounded up to the work-group; each reads up to
    // three floats past its tile to finish its last float4.
    const std::size_t grid_w = round_up(problem.out_width(), options.wg_x);
    const std::size_t grid_h = round_up(problem.out_height(), options.wg_y);
    const std::size_t reach = grid_w + F + 2;
    Layout layout;
    layout.in_pitch = aligned ? round_up(reach, 32) : problem.padded.width;
    layout.in_rows = (grid_h + F - 2) + (reach + layout.in_pitch - 1) / layout.in_pitch;

    auto launch = std::make_unique<BufferLaunch>(device, problem, layout);
    std::string build_options = "-D FILTER_WIDTH=" + std::to_string(F);
    if (aligned) build_options += " -D ALIGNED_PITCH";
    if (variant(options) == "scalar") build_options += " -D SCALAR_LOADS";
    cl::Program program = device.program(source(options), build_options, label(options));
    launch->kernel = make_kernel(program, "convolve", label(options));
    launch->set_standard_args(problem);
    const int tile_width = static_cast<int>(round_up(options.wg_x + F - 1, 4));
    const int tile_height = options.wg_y + F - 1;
    const std::size_t tile_bytes = sizeof(float) * tile_width * tile_height;
    launch->set_ranges(device, options.wg_x, options.wg_y);
    check_local_memory(device, launch->kernel, tile_bytes,
                       "a " + std::to_string(tile_width) + "x" + std::to_string(tile_height) +
                           " tile (work-group " + launch->work_group() + ", filter " +
                           std::to_string(F) + ")");
    launch->kernel.setArg(7, cl::Local(tile_bytes));
    launch->kernel.setArg(8, tile_width);
    launch->kernel.setArg(9, tile_height);
    return launch;
  }
};

}  // namespace

std::unique_ptr<Step> make_step5_vector() { return std::make_unique<VectorStep>(); }

}  // namespace conv
