// Encoders for test images in every format the loader promises.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace conv::test {

// 8-bit pixels, `channels` per pixel (1 or 3), row-major.
std::vector<std::uint8_t> encode(const std::string& format, int w, int h, int channels,
                                 const std::vector<std::uint8_t>& pixels);

// Little-endian fields, for headers written byte by byte (BMP).
inline void put16(std::vector<std::uint8_t>& b, std::uint32_t v) {
  b.push_back(v & 0xFF);
  b.push_back((v >> 8) & 0xFF);
}
inline void put32(std::vector<std::uint8_t>& b, std::uint32_t v) {
  put16(b, v & 0xFFFF);
  put16(b, v >> 16);
}

}  // namespace conv::test
