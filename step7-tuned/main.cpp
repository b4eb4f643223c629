#include <cstring>

#include "common/machinery/step_main.hpp"
#include "common/machinery/tuner.hpp"

namespace conv {
std::unique_ptr<Step> make_step7_tuned();
}

// With --tune, the harness's tuner (common/machinery/tuner.hpp) over this
// step's space; otherwise the step, as every step runs.
int main(int argc, char** argv) {
  auto step = conv::make_step7_tuned();
  for (int i = 1; i < argc; ++i)
    if (std::strcmp(argv[i], "--tune") == 0)
      return conv::tune_step_main(argc, argv, *step, "");
  return conv::step_main(argc, argv, *step,
                         "Tuning mode: step7-tuned --tune [--filters LIST] [--budget S] [--small] [--no-store]\n"
                         "  searches this device's best settings per filter and stores the winners, which\n"
                         "  later runs use; step7-tuned --tune --help describes each option.");
}
