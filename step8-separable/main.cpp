#include <cstring>

#include "common/machinery/step_main.hpp"
#include "common/machinery/tuner.hpp"

namespace conv {
std::unique_ptr<Step> make_step8_separable();
}

// With --tune, the harness's tuner (common/machinery/tuner.hpp) over this
// step's space (tuning.hpp); otherwise the step, as every step runs.
int main(int argc, char** argv) {
  auto step = conv::make_step8_separable();
  for (int i = 1; i < argc; ++i)
    if (std::strcmp(argv[i], "--tune") == 0)
      return conv::tune_step_main(argc, argv, *step, "");
  return conv::step_main(argc, argv, *step,
                         "Tuning mode: step8-separable --tune [--filters LIST] [--budget S] [--small] [--no-store]\n"
                         "  searches this device's best method and settings per filter (width, box or rank) and\n"
                         "  stores the winners, which later runs use; --tune --help describes each option.");
}
