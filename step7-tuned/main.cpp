#include <cstring>

#include "common/machinery/step_main.hpp"
#include "step7-tuned/tuner.hpp"

namespace conv {
std::unique_ptr<Step> make_step7_tuned();
}

// With --tune, the tuner (tuner.cpp); otherwise the step, as every step runs.
int main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i)
    if (std::strcmp(argv[i], "--tune") == 0) return conv::tune_main(argc, argv);
  auto step = conv::make_step7_tuned();
  return conv::step_main(argc, argv, *step,
                         "Tuning mode: step7-tuned --tune [--filter-widths LIST] [--budget S] [--small] [--no-store]\n"
                         "  searches this device's best settings per filter width and stores the winners, which\n"
                         "  later runs use; step7-tuned --tune --help describes each option.");
}
