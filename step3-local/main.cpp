#include "common/step_main.hpp"

namespace conv {
std::unique_ptr<Step> make_step3_local();
}

int main(int argc, char** argv) {
  auto step = conv::make_step3_local();
  return conv::step_main(argc, argv, *step);
}
