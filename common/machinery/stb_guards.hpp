// The checks made before stb_image may decode a file's bytes. stb_image
// trusts what it is given: it decodes cut files by padding them with zeros,
// writes past its tables on some corrupt JPEGs, and takes any size. Every
// loader of the project (common/machinery/image_files.cpp, the histogram's color images)
// calls check_image_bytes() first.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace conv {

// Everything checked before stb_image may decode `bytes` (every loader of
// the project calls it): formats it is not to decode, JPEG
// Huffman tables it would write past, sizes over the limits, files it
// would decode although they are cut short (it pads them with zeros), and
// JPEG decompression bombs: more than 100 scans, or less coded data than
// one bit per 8x8 block of the size the file declares.
// Returns the size and channels; Error naming `name` otherwise.
struct ImageInfo {
  int width = 0, height = 0, channels = 0;
};
ImageInfo check_image_bytes(const std::string& name, const std::vector<std::uint8_t>& bytes);

// stb_image's reason for its last failure, as one printable line.
std::string decoder_complaint();

}  // namespace conv
