#include <cstring>

#include "common/machinery/step_main.hpp"
#include "common/machinery/tuner.hpp"

namespace conv {
std::unique_ptr<Step> make_step10_fft_tiled();
}

// With --tune, the harness's tuner (common/machinery/tuner.hpp) over this
// step's space: the tile, its layout (the lesson's and the candidates') and
// the work-group; otherwise the step, as every step runs.
int main(int argc, char** argv) {
  auto step = conv::make_step10_fft_tiled();
  for (int i = 1; i < argc; ++i)
    if (std::strcmp(argv[i], "--tune") == 0)
      return conv::tune_step_main(argc, argv, *step, "");
  return conv::step_main(argc, argv, *step,
                         "Tuning mode: step10-fft-tiled --tune [--filters LIST] [--budget S] [--small] [--no-store]\n"
                         "  searches this device's best tile, layout and work-group per filter width and stores\n"
                         "  the winners, which later runs use; step10-fft-tiled --tune --help describes each option.");
}
