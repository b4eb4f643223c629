#include "common/cli.hpp"

namespace conv {
std::unique_ptr<Step> make_step8_fft();
}

int main(int argc, char** argv) {
  auto step = conv::make_step8_fft();
  return conv::step_main(argc, argv, *step);
}
