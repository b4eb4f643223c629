#include "common/step_main.hpp"

namespace conv {
std::unique_ptr<Step> make_step2_constant();
}

int main(int argc, char** argv) {
  auto step = conv::make_step2_constant();
  return conv::step_main(argc, argv, *step);
}
