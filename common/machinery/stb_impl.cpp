// The one translation unit that compiles stb_image and stb_image_write (from
// Debian's libstb-dev headers) into the harness.
#define STB_IMAGE_IMPLEMENTATION
#define STB_IMAGE_WRITE_IMPLEMENTATION
#define STBI_NO_STDIO        // files are read by the harness, decoded from memory
// Only the formats the documentation lists: PNG, JPEG, BMP and TGA through
// stb_image; PGM, PPM and PFM have exact readers of their own (netpbm.cpp).
// The rest would decode cut or absurd files into black images.
#define STBI_NO_HDR
#define STBI_NO_PSD
#define STBI_NO_GIF
#define STBI_NO_PIC
#define STBI_NO_PNM
#define STBI_NO_LINEAR
#define STBI_WRITE_NO_STDIO
#define STBI_MAX_DIMENSIONS (1 << 16)
#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
#pragma GCC diagnostic ignored "-Wsign-compare"
#pragma GCC diagnostic ignored "-Wunused-parameter"
#pragma GCC diagnostic ignored "-Wunused-function"
#endif
#include <stb_image.h>
#include <stb_image_write.h>
#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif
