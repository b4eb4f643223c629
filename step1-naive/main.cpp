#include "common/step_main.hpp"

namespace conv {
std::unique_ptr<Step> make_step1_naive();
}

int main(int argc, char** argv) {
  auto step = conv::make_step1_naive();
  return conv::step_main(argc, argv, *step);
}
