#include "common/machinery/image_files.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <memory>
#include <sstream>

#define STBI_NO_STDIO
#define STBI_WRITE_NO_STDIO
#include <stb_image.h>
#include <stb_image_write.h>

#include "common/core/errors.hpp"
#include "common/machinery/netpbm.hpp"
#include "common/machinery/parse.hpp"
#include "common/machinery/files.hpp"
#include "common/machinery/platform/files.hpp"

namespace conv {
namespace fs = std::filesystem;

namespace {

std::string lower_extension(const std::string& path) {
  std::string ext = fs::path(path).extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return ext;
}

template <typename T>
Image to_gray(const T* data, int w, int h, int channels, float max_value) {
  Image img(w, h);
  const std::size_t n = static_cast<std::size_t>(w) * h;
  for (std::size_t i = 0; i < n; ++i) {
    const T* p = data + i * channels;
    float v;
    if (channels >= 3 && p[0] == p[1] && p[1] == p[2])
      v = p[0] / max_value;  // gray stored as RGB (BMP, JPEG) stays exact
    else if (channels >= 3)
      v = luma(p[0] / max_value, p[1] / max_value, p[2] / max_value);
    else
      v = p[0] / max_value;  // gray or gray+alpha: alpha is ignored
    img.pixels[i] = v;
  }
  return img;
}

}  // namespace

std::vector<std::uint8_t> read_image_file(const std::string& path) {
  require_regular_file(path, "an image file");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(path + ": cannot open: " + std::strerror(errno));
  in.seekg(0, std::ios::end);
  std::streamoff size = in.tellg();
  if (size < 0) throw Error(path + ": cannot read");
  if (size == 0) throw Error(path + ": file is empty");
  if (size > (std::streamoff{1} << 32)) throw Error(path + ": file is larger than 4 GiB");
  in.seekg(0);
  std::vector<std::uint8_t> bytes(static_cast<std::size_t>(size));
  in.read(reinterpret_cast<char*>(bytes.data()), size);
  if (!in) throw Error(path + ": read failed");
  return bytes;
}

std::vector<std::uint8_t> encode_pfm(const Image& image) {
  std::ostringstream header;
  header << "Pf\n" << image.width << ' ' << image.height << "\n-1.0\n";
  std::string h = header.str();
  std::vector<std::uint8_t> out(h.begin(), h.end());
  out.reserve(out.size() + image.pixels.size() * 4);
  for (int y = image.height - 1; y >= 0; --y)
    for (int x = 0; x < image.width; ++x) {
      std::uint32_t u;
      float v = image.at(x, y);
      std::memcpy(&u, &v, 4);
      for (int k = 0; k < 4; ++k) out.push_back(static_cast<std::uint8_t>(u >> (8 * k)));
    }
  return out;
}

Image load_image(const std::string& path) {
  std::vector<std::uint8_t> bytes = read_image_file(path);
  if (looks_like_pfm(bytes)) return decode_pfm(bytes, path);
  if (looks_like_pnm(bytes)) return pnm_to_gray(decode_pnm(bytes, path));
  auto [w, h, channels] = check_image_bytes(path, bytes);
  const int len = static_cast<int>(bytes.size());
  if (stbi_is_16_bit_from_memory(bytes.data(), len)) {
    std::unique_ptr<stbi_us, void (*)(void*)> data(
        stbi_load_16_from_memory(bytes.data(), len, &w, &h, &channels, 0), stbi_image_free);
    if (!data) throw Error(path + ": cannot decode (" + decoder_complaint() + ")");
    return to_gray(data.get(), w, h, channels, 65535.0f);
  }
  std::unique_ptr<stbi_uc, void (*)(void*)> data(
      stbi_load_from_memory(bytes.data(), len, &w, &h, &channels, 0), stbi_image_free);
  if (!data) throw Error(path + ": cannot decode (" + decoder_complaint() + ")");
  return to_gray(data.get(), w, h, channels, 255.0f);
}

namespace {

struct SyntheticSpec {
  int width = 0, height = 0;
  std::uint32_t seed = 1;
};

// "WxH" or "WxH:SEED", after "synthetic:".
SyntheticSpec parse_synthetic(std::string rest) {
  std::uint32_t seed = 1;
  auto colon = rest.find(':');
  if (colon != std::string::npos) {
    seed = static_cast<std::uint32_t>(
        parse_positive_int(rest.substr(colon + 1), "--image synthetic seed", 1 << 30));
    rest = rest.substr(0, colon);
  }
  auto [w, h] = parse_size(rest, "--image synthetic", kMaxImageSide);
  if (static_cast<std::int64_t>(w) * h > kMaxImagePixels)
    throw UsageError("--image synthetic: " + rest + " is over the limit of " +
                     std::to_string(kMaxImagePixels) + " pixels");
  return {w, h, seed};
}

constexpr const char* kSyntheticPrefix = "synthetic:";

}  // namespace

Image load_image_spec(const std::string& spec) {
  if (spec.empty()) throw UsageError("--image: empty; name a file, or synthetic:WxH");
  if (spec.rfind(kSyntheticPrefix, 0) != 0) return load_image(spec);
  const SyntheticSpec s = parse_synthetic(spec.substr(std::string(kSyntheticPrefix).size()));
  return synthetic_image(s.width, s.height, s.seed);
}

void check_image_spec(const std::string& spec) {
  if (spec.empty()) throw UsageError("--image: empty; name a file, or synthetic:WxH");
  if (spec.rfind(kSyntheticPrefix, 0) == 0) parse_synthetic(spec.substr(std::string(kSyntheticPrefix).size()));
  else load_image(spec);
}

Image synthetic_image(int width, int height, std::uint32_t seed) {
  Image img(width, height);
  std::uint32_t state = seed * 2654435761u + 12345u;
  auto next = [&]() {  // xorshift32: tiny, deterministic, good enough for noise
    state ^= state << 13;
    state ^= state >> 17;
    state ^= state << 5;
    return state;
  };
  // A few discs at seed-dependent places.
  struct Disc {
    float cx, cy, r, v;
  };
  Disc discs[4];
  for (auto& d : discs) {
    d.cx = (next() % 1000) / 1000.0f;
    d.cy = (next() % 1000) / 1000.0f;
    d.r = 0.05f + (next() % 200) / 1000.0f;
    d.v = (next() % 1000) / 1000.0f;
  }
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x) {
      float u = (x + 0.5f) / width, v = (y + 0.5f) / height;
      float value = 0.35f * u + 0.25f * v;                       // gradients
      value += 0.15f * std::sin(18.0f * u) * std::cos(11.0f * v);  // smooth waves
      if ((x / 32 + y / 32) % 2 == 0) value += 0.1f;               // hard edges
      for (const auto& d : discs)
        if ((u - d.cx) * (u - d.cx) + (v - d.cy) * (v - d.cy) < d.r * d.r)
          value = 0.5f * value + 0.5f * d.v;
      value += 0.1f * ((next() >> 8) / 16777216.0f - 0.5f);  // noise
      img.at(x, y) = std::min(1.0f, std::max(0.0f, value));
    }
  return img;
}

std::string output_target(const std::string& path) {
  std::string at = path;
  for (int hops = 0; hops < 40; ++hops) {
    std::error_code status_error;
    if (link_status(at, status_error).kind != FileKind::symlink) return at;
    std::error_code ec;
    const fs::path target = fs::read_symlink(at, ec);
    if (ec) throw Error(path + ": cannot read the symbolic link: " + ec.message());
    at = target.is_absolute() ? target.string() : (fs::path(at).parent_path() / target).string();
  }
  throw Error(path + ": too many levels of symbolic links");
}

std::string partial_path(const std::string& path) {
  const fs::path target = output_target(path);
  const std::string name = target.filename().string() + ".partial";
  if (name.size() <= max_file_name_length()) return target.string() + ".partial";
  return (target.parent_path() / (".clconv-partial-" + std::to_string(process_id()))).string();
}

namespace {

// Error unless `target` (what `path` names) is a regular file or nothing:
// a FIFO, a device or a socket is never replaced by a file.
void require_replaceable(const std::string& path, const std::string& target) {
  std::error_code ec;
  const FileStatus st = file_status(target, ec);
  if (ec || st.kind == FileKind::regular) return;
  if (st.kind == FileKind::directory) throw Error(path + ": is a directory");
  throw Error(path + ": is " + kind_text(st.kind) +
              ", not a regular file; an output is written only to a regular file (or a new one)");
}

// The temporaries' names: ".clconv-PID-N", short, so that a target name of
// the longest length allowed still has room beside it.
constexpr const char* kTemporaryPrefix = ".clconv-";

}  // namespace

void write_file_atomically(const std::string& path, const std::vector<std::uint8_t>& bytes) {
  const std::string target = output_target(path);
  require_replaceable(path, target);
  const ReplaceResult r = replace_file_contents(target, bytes.data(), bytes.size(), kTemporaryPrefix);
  if (r) return;
  throw Error(path + (r.step == ReplaceStep::write ? ": write failed: " : ": cannot write: ") + r.error.message());
}

void check_output_path(const std::string& path) { check_output_path(path, {".png", ".pfm"}); }

void check_output_path(const std::string& path, const std::vector<std::string>& extensions) {
  check_output_extension(path, extensions, "--output");
  check_writable(path);
}

void check_output_extension(const std::string& path, const std::vector<std::string>& extensions,
                            const std::string& option) {
  const std::string ext = lower_extension(path);
  std::string names;  // ".png or .pfm"
  for (std::size_t i = 0; i < extensions.size(); ++i) {
    if (lower_extension("x" + extensions[i]) == ext) return;
    names += (i == 0 ? "" : i + 1 == extensions.size() ? " or " : ", ") + extensions[i];
  }
  throw UsageError(option + ": '" + path + "' must end in " + names);
}

void check_writable(const std::string& path) {
  const std::string target = output_target(path);
  require_replaceable(path, target);
  std::error_code ec;
  fs::path parent = fs::path(target).parent_path();
  if (!parent.empty() && !fs::is_directory(parent, ec))
    throw Error(path + (fs::exists(fs::symlink_status(parent, ec)) ? ": " + parent.string() + " is not a folder"
                                                                   : ": folder " + parent.string() + " does not exist"));
  std::string probe;
  NewFile file;
  if (const std::error_code e = create_temporary_file(parent.string(), kTemporaryPrefix, file, probe))
    throw Error(path + ": cannot write: " + e.message());
  file.close();
  remove_file(probe);
}

void save_image(const std::string& path, const Image& image) {
  check_output_path(path);
  if (lower_extension(path) == ".pfm") {
    write_file_atomically(path, encode_pfm(image));
    return;
  }
  std::vector<std::uint8_t> gray(image.pixels.size());
  for (std::size_t i = 0; i < gray.size(); ++i) {
    float v = image.pixels[i];
    v = std::isnan(v) ? 0.0f : std::min(1.0f, std::max(0.0f, v));
    gray[i] = static_cast<std::uint8_t>(std::lround(v * 255.0f));
  }
  std::vector<std::uint8_t> png;
  auto sink = [](void* ctx, void* data, int size) {
    auto* out = static_cast<std::vector<std::uint8_t>*>(ctx);
    auto* p = static_cast<std::uint8_t*>(data);
    out->insert(out->end(), p, p + size);
  };
  if (!stbi_write_png_to_func(sink, &png, image.width, image.height, 1, gray.data(), image.width))
    throw Error(path + ": PNG encoding failed");
  write_file_atomically(path, png);
}

std::vector<Image> split_planes(const Image& stacked, int planes) {
  if (planes < 1 || stacked.height % planes != 0)
    throw Error("an image of " + std::to_string(stacked.height) + " rows does not hold " +
                std::to_string(planes) + " planes");
  std::vector<Image> out;
  const int height = stacked.height / planes;
  for (int k = 0; k < planes; ++k) {
    Image plane(stacked.width, height);
    const auto first = stacked.pixels.begin() + static_cast<std::ptrdiff_t>(k) * plane.pixels.size();
    std::copy(first, first + static_cast<std::ptrdiff_t>(plane.pixels.size()), plane.pixels.begin());
    out.push_back(std::move(plane));
  }
  return out;
}

}  // namespace conv
