#include "common/machinery/program_cache.hpp"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>

#include "common/core/device.hpp"
#include "common/core/errors.hpp"
#include "common/core/program.hpp"
#include "common/machinery/cache_dir.hpp"
#include "common/machinery/device_choice.hpp"
#include "common/machinery/image_files.hpp"

namespace conv {
namespace {

constexpr char kMagic[] = "clconv-program-cache 1\n";  // bump when the format or the key changes

std::uint64_t fnv1a(const std::string& text, std::uint64_t hash) {
  for (unsigned char c : text) {
    hash ^= c;
    hash *= 1099511628211ull;
  }
  return hash;
}

std::string hex(std::uint64_t v) {
  static const char digits[] = "0123456789abcdef";
  std::string s(16, '0');
  for (int i = 15; i >= 0; --i, v >>= 4) s[static_cast<std::size_t>(i)] = digits[v & 15];
  return s;
}

void put_u64(std::vector<std::uint8_t>& out, std::uint64_t v) {
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<std::uint8_t>(v >> (8 * i)));
}

std::string trimmed(std::string s) {
  while (!s.empty() && (s.back() == '\0' || s.back() == ' ' || s.back() == '\n')) s.pop_back();
  return s;
}

}  // namespace

bool ProgramCache::disabled_by_environment() {
  const char* v = std::getenv("CLCONV_NO_BINARY_CACHE");
  return v && *v && std::string(v) != "0";
}

ProgramCache ProgramCache::for_user(bool disabled) {
  if (disabled || disabled_by_environment()) return ProgramCache();
  return ProgramCache(cache_dir("clconv/programs"));
}

std::string ProgramCache::key_text(const cl::Device& device, const std::string& source,
                                   const std::string& options) {
  const cl::Platform platform(device.getInfo<CL_DEVICE_PLATFORM>());
  std::ostringstream s;
  s << kMagic << "platform: " << trimmed(platform.getInfo<CL_PLATFORM_NAME>()) << " | "
    << trimmed(platform.getInfo<CL_PLATFORM_VERSION>()) << "\n"
    << "device: " << trimmed(device.getInfo<CL_DEVICE_NAME>()) << " | "
    << trimmed(device.getInfo<CL_DEVICE_VENDOR>()) << " | "
    << trimmed(device.getInfo<CL_DEVICE_VERSION>()) << "\n"
    << "driver: " << trimmed(device.getInfo<CL_DRIVER_VERSION>()) << "\n"
    << "options: " << options << "\n"
    << "source: " << source.size() << " bytes\n"
    << source;
  return s.str();
}

std::string ProgramCache::key(const cl::Device& device, const std::string& source,
                              const std::string& options) {
  // Two 64-bit FNV-1a digests with different seeds: 128 bits of file name.
  // A collision would only cost a rebuild, since load() compares the whole key.
  const std::string text = key_text(device, source, options);
  return hex(fnv1a(text, 14695981039346656037ull)) + hex(fnv1a(text, 0x9e3779b97f4a7c15ull));
}

std::string ProgramCache::path_for(const std::string& key) const {
  return folder_ + "/" + key + ".bin";
}

std::vector<std::uint8_t> ProgramCache::encode_entry(const std::string& key_text,
                                                     const std::vector<unsigned char>& binary) {
  std::vector<std::uint8_t> out(kMagic, kMagic + sizeof kMagic - 1);
  put_u64(out, key_text.size());
  out.insert(out.end(), key_text.begin(), key_text.end());
  put_u64(out, binary.size());
  out.insert(out.end(), binary.begin(), binary.end());
  const std::string binary_text(binary.begin(), binary.end());
  put_u64(out, fnv1a(binary_text, fnv1a(key_text, 14695981039346656037ull)));
  return out;
}

cl::Program ProgramCache::build_cold(const cl::Context& context, const cl::Device& device,
                                     const std::string& source, const std::string& options,
                                     const std::string& label) {
  return build_program(context, device, source, options, label);
}

std::optional<cl::Program> ProgramCache::load(const cl::Context& context, const cl::Device& device,
                                              const std::string& source, const std::string& options,
                                              std::string* why) const {
  auto miss = [&](const std::string& reason) -> std::optional<cl::Program> {
    if (why) *why = reason;
    return std::nullopt;
  };
  if (!enabled()) return miss("the cache is off");
  try {
    const std::string text = key_text(device, source, options);
    const std::string path = path_for(key(device, source, options));
    if (!cache_entry_usable(path)) return miss("not a regular file (a link, a folder or a FIFO)");
    std::ifstream in(path, std::ios::binary);
    if (!in) return miss("no entry");
    const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::size_t pos = sizeof kMagic - 1;
    auto get_u64 = [&](std::uint64_t& v) {
      if (bytes.size() - pos < 8) return false;
      v = 0;
      for (int i = 0; i < 8; ++i)
        v |= std::uint64_t{static_cast<unsigned char>(bytes[pos + i])} << (8 * i);
      pos += 8;
      return true;
    };
    if (bytes.size() < pos || bytes.compare(0, pos, kMagic) != 0) return miss("not a cache entry");
    std::uint64_t key_size = 0, binary_size = 0, checksum = 0;
    if (!get_u64(key_size) || bytes.size() - pos < key_size) return miss("truncated entry");
    const std::string stored_key = bytes.substr(pos, key_size);
    pos += key_size;
    // The file name matched, but the key inside must too: no stale binaries.
    if (stored_key != text)
      return miss("stale entry (built for another source, options or device)");
    if (!get_u64(binary_size) || bytes.size() - pos < binary_size) return miss("truncated entry");
    const std::string binary = bytes.substr(pos, binary_size);
    pos += binary_size;
    if (!get_u64(checksum) || pos != bytes.size() ||
        checksum != fnv1a(binary, fnv1a(stored_key, 14695981039346656037ull)))
      return miss("corrupt entry (checksum)");
    if (binary.empty()) return miss("empty binary");

    const std::vector<cl::Device> devices{device};
    cl::Program::Binaries binaries{std::vector<unsigned char>(binary.begin(), binary.end())};
    cl::Program program(context, devices, binaries);
    program.build(devices, options.c_str());
    return program;
  } catch (const cl::BuildError& e) {  // CLHPP's: the driver's log for each device
    std::string log;
    for (const auto& [built_for, text] : e.getBuildLog()) log += text;
    while (!log.empty() && (log.back() == '\n' || log.back() == '\0' || log.back() == ' '))
      log.pop_back();
    std::replace(log.begin(), log.end(), '\n', ' ');  // one line, for a note on stderr
    return miss(std::string("the driver refused the binary (") + e.what() + ": " +
                cl_error_name(e.err()) + ")" + (log.empty() ? "" : "; build log: " + log));
  } catch (const cl::Error& e) {
    return miss(std::string("the driver refused the binary (") + e.what() + ")");
  } catch (const std::exception& e) {
    return miss(e.what());
  }
}

void ProgramCache::store(const cl::Program& program, const cl::Device& device,
                         const std::string& source, const std::string& options) const {
  if (!enabled()) return;
  try {
    const auto binaries = program.getInfo<CL_PROGRAM_BINARIES>();
    if (binaries.size() != 1 || binaries[0].empty()) return;  // nothing a driver can reload
    std::error_code ec;
    std::filesystem::create_directories(folder_, ec);
    // Never through a link: a new file renamed over the entry's path.
    write_cache_file(path_for(key(device, source, options)),
                     encode_entry(key_text(device, source, options), binaries[0]));
  } catch (const std::exception&) {
    // A cache that cannot be written only costs a cold build next time.
  }
}

ProgramCache::Built ProgramCache::build(const cl::Context& context, const cl::Device& device,
                                        const std::string& source, const std::string& options,
                                        const std::string& label) const {
  if (auto program = load(context, device, source, options)) return {*program, true};
  Built built{build_cold(context, device, source, options, label), false};
  store(built.program, device, source, options);
  return built;
}

void DeviceContext::use_binary_cache(ProgramCache cache) {
  set_builder([cache = std::move(cache), context = context_, device = device_](
                  const std::string& source, const std::string& options, const std::string& label) {
    return with_build_hint(label, [&] {
      return cache.enabled() ? cache.build(context, device, source, options, label).program
                             : build_program(context, device, source, options, label);
    });
  });
}

}  // namespace conv
