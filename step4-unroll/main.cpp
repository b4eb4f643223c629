#include "common/step_main.hpp"

namespace conv {
std::unique_ptr<Step> make_step4_unroll();
}

int main(int argc, char** argv) {
  auto step = conv::make_step4_unroll();
  return conv::step_main(argc, argv, *step);
}
