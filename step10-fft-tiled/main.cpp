#include "common/step_main.hpp"

namespace conv {
std::unique_ptr<Step> make_step10_fft_tiled();
}

int main(int argc, char** argv) {
  auto step = conv::make_step10_fft_tiled();
  return conv::step_main(argc, argv, *step);
}
