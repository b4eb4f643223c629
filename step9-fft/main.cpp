#include "common/step_main.hpp"

namespace conv {
std::unique_ptr<Step> make_step9_fft();
}

int main(int argc, char** argv) {
  auto step = conv::make_step9_fft();
  return conv::step_main(argc, argv, *step);
}
