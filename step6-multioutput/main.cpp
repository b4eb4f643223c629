#include "common/step_main.hpp"

namespace conv {
std::unique_ptr<Step> make_step6_multioutput();
}

int main(int argc, char** argv) {
  auto step = conv::make_step6_multioutput();
  return conv::step_main(argc, argv, *step);
}
