#include "common/machinery/random_inputs.hpp"

#include <cstdlib>
#include <memory>

namespace conv {

DeviceContext& environment_device() {
  static std::unique_ptr<DeviceContext> context = [] {
    DeviceChoice choice;
    if (const char* p = std::getenv("CLCONV_PLATFORM")) choice.platform = p;
    if (const char* d = std::getenv("CLCONV_DEVICE")) choice.device = d;
    if (const char* t = std::getenv("CLCONV_DEVICE_TYPE")) choice.type = t;
    return std::make_unique<DeviceContext>(choice);
  }();
  return *context;
}

Image random_image(int width, int height, std::mt19937& rng) {
  std::uniform_real_distribution<float> dist(0.0f, 1.0f);
  Image img(width, height);
  for (auto& v : img.pixels) v = dist(rng);
  return img;
}

Filter random_filter(int width, std::mt19937& rng) {
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  Filter f;
  f.width = width;
  f.name = "random:" + std::to_string(width);
  f.weights.resize(static_cast<std::size_t>(width) * width);
  for (auto& w : f.weights) w = dist(rng);
  return f;
}

}  // namespace conv
