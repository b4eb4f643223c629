// libFuzzer target: the Netpbm readers straight from memory, PGM/PPM
// (decode_pnm) and PFM (decode_pfm), so every input exercises their header
// grammar without stb_image in the way. Every input must give a raster that
// matches its header exactly (samples within maxval, finite PFM values) or a
// conv::Error of one line that names the file.
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "common/core/errors.hpp"
#include "common/machinery/netpbm.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::vector<std::uint8_t> bytes(data, data + size);
  try {
    if (conv::looks_like_pfm(bytes)) {
      const conv::Image img = conv::decode_pfm(bytes, "fuzz.pfm");
      if (img.width < 1 || img.height < 1 ||
          img.pixels.size() != static_cast<std::size_t>(img.width) * img.height)
        std::abort();
      for (float v : img.pixels)
        if (!std::isfinite(v)) std::abort();
    } else {
      const conv::PnmRaster r = conv::decode_pnm(bytes, "fuzz.pgm");
      if (r.maxval < 1 || r.maxval > 65535 || (r.channels != 1 && r.channels != 3)) std::abort();
      if (r.samples.size() != static_cast<std::size_t>(r.width) * r.height * r.channels) std::abort();
      // Exactly as many raster bytes as the header says: nothing left over.
      if (size < r.samples.size() * (r.maxval > 255 ? 2 : 1)) std::abort();
      for (std::uint16_t s : r.samples)
        if (s > r.maxval) std::abort();
      const conv::Image gray = conv::pnm_to_gray(r);
      for (float v : gray.pixels)
        if (!(v >= 0.0f && v <= 1.0f)) std::abort();
    }
  } catch (const conv::Error& e) {
    const std::string what = e.what();
    if (what.find('\n') != std::string::npos || what.rfind("fuzz.p", 0) != 0) std::abort();
  }
  return 0;
}
