// Image files: loading (stb_image, PFM), saving (PNG, PFM), output paths
// written atomically, and the seeded synthetic image used when no file is
// given. The Image itself is common/core/problem.hpp's.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "common/core/problem.hpp"
#include "common/machinery/stb_guards.hpp"  // check_image_bytes(), for every loader

namespace conv {

// The largest image accepted from a file or a spec: 2^28 pixels (1 GiB of
// float32), and 65536 on a side.
constexpr std::int64_t kMaxImagePixels = std::int64_t{1} << 28;
constexpr int kMaxImageSide = 1 << 16;

// PNG, JPEG, BMP, TGA, PGM/PPM (binary, any maximum value) or PFM; nothing
// else. Color is converted to gray (Rec. 601 luma); a PGM/PPM sample v maps
// to v/maxval, other 8-bit values to v/255 and 16-bit PNG to v/65535; PFM
// values are taken as they are. Throws Error naming the file.
Image load_image(const std::string& path);

// A whole image file's bytes; Error naming the file for anything but a
// regular file (a folder, a FIFO, a device), an empty or unreadable file, or
// one over 4 GiB.
std::vector<std::uint8_t> read_image_file(const std::string& path);

// "synthetic:WxH" or "synthetic:WxH:SEED" or a file path.
Image load_image_spec(const std::string& spec);

// Throws what load_image_spec(spec) would, without keeping an image: a
// synthetic spec is parsed only, a file is read and decoded, then dropped.
// For a tool that checks a list of images before its first run and loads
// each when its turn comes.
void check_image_spec(const std::string& spec);

// Deterministic for a given seed: gradients, hard edges, discs and noise, so
// that every filter has something to respond to. Values in [0, 1].
Image synthetic_image(int width, int height, std::uint32_t seed = 1);

// An image holding `planes` planes one under another (a filter bank's or a
// volume's output), as separate images. Throws Error when its height is not
// a multiple of `planes`.
std::vector<Image> split_planes(const Image& stacked, int planes);

// Writes by extension: .png (clamped to [0,1], 8-bit gray, for looking) or
// .pfm (exact float32). The file appears whole or not at all.
void save_image(const std::string& path, const Image& image);

// Checks before any work is done that `path` has a known extension (.png or
// .pfm, else one of `extensions`, each with its dot, matched ignoring case)
// and can be written (its folder exists and takes a new file), so a long run
// does not fail at the very end. UsageError for the extension.
void check_output_path(const std::string& path);
void check_output_path(const std::string& path, const std::vector<std::string>& extensions);
// Its first half: UsageError naming `option` unless `path` ends in one of
// `extensions` (ignoring case).
void check_output_extension(const std::string& path, const std::vector<std::string>& extensions,
                            const std::string& option);

// Error naming `path` unless a file can be created beside it and renamed
// onto it (what write_file_atomically does): tried, then removed. A
// symbolic link is followed to what it names; a folder, a FIFO, a device
// or a socket there is refused (never replaced).
void check_writable(const std::string& path);

// PFM as the format defines it: "Pf", width height, scale (negative for
// little-endian), then rows from the bottom up.
std::vector<std::uint8_t> encode_pfm(const Image& image);
Image decode_pfm(const std::vector<std::uint8_t>& bytes, const std::string& name);

// What an output path names: the path itself or, for a symbolic link, its
// target, followed to the end (a link to a file that does not exist yet
// names the file the write creates). Outputs are written through a link;
// the link stays.
std::string output_target(const std::string& path);

// Where a file written piece by piece before it becomes `path` is kept
// (sweep's rows): TARGET.partial beside what `path` names, or, where that
// name would be longer than a file name may be, .clconv-partial-PID there.
std::string partial_path(const std::string& path);

// Writes bytes to a temporary file beside `path` (".clconv-PID-N": short,
// so that any legal name can be written) and renames it into place. A
// symbolic link at `path` is written through: its target is replaced, the
// link stays. Error for a folder, a FIFO, a device or a socket at `path`.
void write_file_atomically(const std::string& path, const std::vector<std::uint8_t>& bytes);

}  // namespace conv
