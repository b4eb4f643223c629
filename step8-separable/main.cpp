#include "common/step_main.hpp"

namespace conv {
std::unique_ptr<Step> make_step8_separable();
}

int main(int argc, char** argv) {
  auto step = conv::make_step8_separable();
  return conv::step_main(argc, argv, *step);
}
