#include "common/cli.hpp"

namespace conv {
std::unique_ptr<Step> make_step7_separable();
}

int main(int argc, char** argv) {
  auto step = conv::make_step7_separable();
  return conv::step_main(argc, argv, *step);
}
