#include "common/machinery/image_files.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <climits>
#include <algorithm>
#include <atomic>
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
#include <stb/stb_image.h>
#include <stb/stb_image_write.h>

#include "common/core/errors.hpp"
#include "common/machinery/netpbm.hpp"
#include "common/machinery/parse.hpp"
#include "common/machinery/files.hpp"

namespace conv {
namespace fs = std::filesystem;

namespace {

std::string lower_extension(const std::string& path) {
  std::string ext = fs::path(path).extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return ext;
}

float luma(float r, float g, float b) { return 0.299f * r + 0.587f * g + 0.114f * b; }

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

Image load_image_spec(const std::string& spec) {
  const std::string prefix = "synthetic:";
  if (spec.rfind(prefix, 0) != 0) return load_image(spec);
  std::string rest = spec.substr(prefix.size());
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
  return synthetic_image(w, h, seed);
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
    struct stat st;
    if (::lstat(at.c_str(), &st) != 0 || !S_ISLNK(st.st_mode)) return at;
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
  if (name.size() <= NAME_MAX) return target.string() + ".partial";
  return (target.parent_path() / (".clconv-partial-" + std::to_string(::getpid()))).string();
}

namespace {

// Error unless `target` (what `path` names) is a regular file or nothing:
// a FIFO, a device or a socket is never replaced by a file.
void require_replaceable(const std::string& path, const std::string& target) {
  struct stat st;
  if (::stat(target.c_str(), &st) != 0 || S_ISREG(st.st_mode)) return;
  if (S_ISDIR(st.st_mode)) throw Error(path + ": is a directory");
  const char* kind = S_ISFIFO(st.st_mode)                         ? "a FIFO"
                     : S_ISSOCK(st.st_mode)                       ? "a socket"
                     : S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode) ? "a device"
                                                                  : "a special file";
  throw Error(path + ": is " + kind + ", not a regular file; an output is written only to a regular file (or a new one)");
}

// A new empty file in `folder` with a short name (".clconv-PID-N", so a
// target name of the longest length allowed still has room beside it),
// open for writing; -1 with errno when none can be made.
int create_temporary(const std::string& folder, std::string& name) {
  static std::atomic<unsigned> counter{0};
  const fs::path dir = folder.empty() ? fs::path(".") : fs::path(folder);
  for (int attempt = 0; attempt < 100; ++attempt) {
    name = (dir / (".clconv-" + std::to_string(::getpid()) + "-" + std::to_string(counter++))).string();
    const int fd = ::open(name.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd >= 0 || errno != EEXIST) return fd;
  }
  return -1;
}

}  // namespace

void write_file_atomically(const std::string& path, const std::vector<std::uint8_t>& bytes) {
  const std::string target = output_target(path);
  require_replaceable(path, target);
  std::string tmp;
  const int fd = create_temporary(fs::path(target).parent_path().string(), tmp);
  if (fd < 0) throw Error(path + ": cannot write: " + std::strerror(errno));
  std::size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const int err = n < 0 ? errno : ENOSPC;
      ::close(fd);
      ::unlink(tmp.c_str());
      throw Error(path + ": write failed: " + std::strerror(err));
    }
    done += static_cast<std::size_t>(n);
  }
  if (::close(fd) != 0) {
    const int err = errno;
    ::unlink(tmp.c_str());
    throw Error(path + ": write failed: " + std::strerror(err));
  }
  if (std::rename(tmp.c_str(), target.c_str()) != 0) {
    const int err = errno;
    ::unlink(tmp.c_str());
    throw Error(path + ": cannot write: " + std::strerror(err));
  }
}

void check_output_path(const std::string& path) { check_output_path(path, {".png", ".pfm"}); }

void check_output_path(const std::string& path, const std::vector<std::string>& extensions) {
  const std::string ext = lower_extension(path);
  std::string names;  // ".png or .pfm"
  for (std::size_t i = 0; i < extensions.size(); ++i) {
    std::string allowed = extensions[i];
    std::transform(allowed.begin(), allowed.end(), allowed.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    if (allowed == ext) {
      check_writable(path);
      return;
    }
    names += (i == 0 ? "" : i + 1 == extensions.size() ? " or " : ", ") + extensions[i];
  }
  throw UsageError("--output: '" + path + "' must end in " + names);
}

void check_writable(const std::string& path) {
  const std::string target = output_target(path);
  require_replaceable(path, target);
  std::error_code ec;
  fs::path parent = fs::path(target).parent_path();
  if (!parent.empty() && !fs::is_directory(parent, ec))
    throw Error(path + ": folder " + parent.string() + " does not exist");
  std::string probe;
  const int fd = create_temporary(parent.string(), probe);
  if (fd < 0) throw Error(path + ": cannot write: " + std::strerror(errno));
  ::close(fd);
  ::unlink(probe.c_str());
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
