// libFuzzer target: the image loader as the executables use it, from a path
// (PFM, and every format stb_image decodes). The bytes live in a memfd, so
// load_image() reads a real file without touching the disk. Every input must
// give an image within the limits, with finite pixels, or a conv::Error.
#include <sys/mman.h>
#include <unistd.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "common/core/errors.hpp"
#include "common/machinery/image_files.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const int fd = memfd_create("fuzz-image", 0);
  static const std::string path = "/proc/self/fd/" + std::to_string(fd);
  if (fd < 0 || ftruncate(fd, 0) != 0) std::abort();
  for (std::size_t done = 0; done < size;) {
    const ssize_t n = pwrite(fd, data + done, size - done, static_cast<off_t>(done));
    if (n <= 0) std::abort();
    done += static_cast<std::size_t>(n);
  }
  try {
    const conv::Image img = conv::load_image(path);
    if (img.width < 1 || img.height < 1 || img.width > conv::kMaxImageSide ||
        img.height > conv::kMaxImageSide ||
        static_cast<std::int64_t>(img.width) * img.height > conv::kMaxImagePixels)
      std::abort();
    if (img.pixels.size() != static_cast<std::size_t>(img.width) * img.height) std::abort();
    for (float v : img.pixels)
      if (!std::isfinite(v)) std::abort();
  } catch (const conv::Error& e) {
    if (std::string(e.what()).find('\n') != std::string::npos) std::abort();
  }
  return 0;
}
