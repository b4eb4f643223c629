#include "common/step_main.hpp"

namespace conv {
std::unique_ptr<Step> make_step5_vector();
}

int main(int argc, char** argv) {
  auto step = conv::make_step5_vector();
  return conv::step_main(argc, argv, *step);
}
