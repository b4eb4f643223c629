#include "histogram/tests/support.hpp"

#include <fstream>
#include <iterator>

#include "tests/support.hpp"

namespace conv::histogram::test {

const DeviceFacts& facts() { return conv::test::device().facts(); }

RgbImage random_image(int width, int height, std::mt19937& rng) {
  RgbImage image;
  image.width = width;
  image.height = height;
  image.rgb.resize(image.pixels() * 3);
  for (auto& b : image.rgb) b = static_cast<std::uint8_t>(rng() >> 24);
  return image;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

Outcome run_histogram(const std::vector<std::string>& args, const Env& env) {
  return conv::test::run_program("histogram", args, env);
}

}  // namespace conv::histogram::test
