// The Netpbm family, read exactly or refused: binary PGM (P5) and PPM (P6)
// at every maximum value 1..65535, and PFM (Pf gray, PF color). Header
// numbers parse strictly, one whitespace byte ends the header, and the
// raster must be exactly as long as the header says (docs/reliability.md).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "common/machinery/image_files.hpp"

namespace conv {

// A PGM or PPM as stored: samples 0..maxval, top row first, R G B side by
// side for a PPM.
struct PnmRaster {
  int width = 0, height = 0, channels = 0;  // channels: 1 (P5) or 3 (P6)
  int maxval = 0;
  std::vector<std::uint16_t> samples;
};

// Gray from color: Rec. 601 luma, the one conversion every reader uses.
float luma(float r, float g, float b);

// "P" and a digit: some Netpbm file (only P5 and P6 are read).
bool looks_like_pnm(const std::vector<std::uint8_t>& bytes);
// "Pf" or "PF".
bool looks_like_pfm(const std::vector<std::uint8_t>& bytes);

// Throws Error naming `name` for anything but a well-formed P5 or P6 file.
PnmRaster decode_pnm(const std::vector<std::uint8_t>& bytes, const std::string& name);

// Gray in [0, 1]: each sample / maxval (PPM: Rec. 601 luma, gray stays exact).
Image pnm_to_gray(const PnmRaster& raster);

}  // namespace conv
