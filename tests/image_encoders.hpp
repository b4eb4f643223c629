// Encoders for test images in every format the loader promises.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace conv::test {

// 8-bit pixels, `channels` per pixel (1 or 3), row-major.
std::vector<std::uint8_t> encode(const std::string& format, int w, int h, int channels,
                                 const std::vector<std::uint8_t>& pixels);

}  // namespace conv::test
