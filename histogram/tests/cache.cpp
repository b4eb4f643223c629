// The program-binary cache: a warm build comes from disk, and nothing built
// for another source, other options or another device is ever used; a
// corrupt or refused entry means a cold build, never a crash.
#include <algorithm>
#include "tests/catch.hpp"
#include <cstdlib>
#include <filesystem>

#include "common/machinery/cache_dir.hpp"
#include "common/machinery/platform/files.hpp"
#include "histogram/device_histogram.hpp"
#include "histogram/tests/support.hpp"

using namespace conv::histogram;
using conv::ProgramCache;
namespace fs = std::filesystem;

namespace {

// A fresh cache folder per test case.
ProgramCache fresh_cache(const std::string& name) {
  const std::string folder = test::scratch_dir() + "/cache-" + name;
  fs::remove_all(folder);
  return ProgramCache(folder);
}

const Variant& local_atomic() { return find_variant("local-atomic"); }

// No variant needs build options; a define the kernel ignores still makes
// a different key, which is all these tests need.
std::string options(unsigned n) { return "-DCACHE_TEST=" + std::to_string(n); }

// The context, device and queue the tests build and run with.
struct Cl {
  const cl::Context& context = test::device().context();
  const cl::Device& device = test::device().device();
  cl::CommandQueue& queue = test::device().queue();
};

// Counts an image with `program` (built from local-atomic's source in the
// context of `on`).
Counts count_with(const cl::Program& program, const RgbImage& image,
                  conv::DeviceContext& on = test::device()) {
  const Plan plan = make_plan(local_atomic(), image.pixels(), Settings(), on.facts());
  DeviceHistogram dh(on.context(), plan);
  dh.upload(on.queue(), image);
  dh.set_program(program, on.device());
  dh.poison(on.queue());
  cl::Event::waitForEvents(dh.enqueue(on.queue()));
  dh.read_back(on.queue());
  return dh.finish();
}

// local-atomic's source with a kernel `count` that counts nothing.
std::string counts_nothing(std::string src) {
  const std::string body = "__kernel void count(";
  REQUIRE(src.find(body) != std::string::npos);
  src.replace(src.find(body), body.size(), "__kernel void unused(");
  return src +
         "\n__kernel void count(__global const uchar* rgb, const uint pixels, const uint chunk,\n"
         "                    __global uint* histogram) {}\n";
}

// Sets (or, given nullptr, unsets) an environment variable for its lifetime.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    const char* old = std::getenv(name);
    had_ = old != nullptr;
    if (had_) old_ = old;
    if (value)
      conv::set_environment(name, value);
    else
      conv::unset_environment(name);
  }
  ~ScopedEnv() {
    if (had_)
      conv::set_environment(name_, old_);
    else
      conv::unset_environment(name_);
  }

 private:
  std::string name_, old_;
  bool had_ = false;
};

// A second context on the tests' device, with nothing built yet.
conv::DeviceEntry tests_device() {
  for (const auto& e : conv::enumerate_devices())
    if (e.device() == test::device().device()()) return e;
  FAIL("the tests' device is not in the device list");
  return {};
}

}  // namespace

TEST_CASE("the cache key changes with source and options, and hashes the device and driver", "[histogram][cache]") {
  const auto& dev = test::device().device();
  const std::string src = local_atomic().source;
  const std::string k = ProgramCache::key(dev, src, options(8));
  CHECK(k.size() == 32);
  CHECK(k == ProgramCache::key(dev, src, options(8)));
  CHECK(k != ProgramCache::key(dev, src, options(4)));
  CHECK(k != ProgramCache::key(dev, src + "\n", options(8)));
  CHECK(k != ProgramCache::key(dev, find_variant("local-words").source, options(8)));
  // The device and the driver are part of what is hashed.
  const std::string text = ProgramCache::key_text(dev, src, options(8));
  CHECK_THAT(text, ContainsText(test::facts().name) && ContainsText(test::facts().driver) &&
                       ContainsText(options(8)) && ContainsText(src));
}

TEST_CASE("a second build is warm and counts the same", "[histogram][cache]") {
  const ProgramCache cache = fresh_cache("warm");
  const Cl c;
  const std::string src = local_atomic().source;
  const auto cold = cache.build(c.context, c.device, src, options(2), "local_atomic.cl");
  CHECK_FALSE(cold.from_cache);
  CHECK(fs::exists(cache.path_for(ProgramCache::key(c.device, src, options(2)))));
  const auto warm = cache.build(c.context, c.device, src, options(2), "local_atomic.cl");
  CHECK(warm.from_cache);

  std::mt19937 rng(test::run_seed());
  const RgbImage image = test::random_image(97, 61, rng);
  INFO(test::seed_note());
  CHECK(describe_difference(count_with(warm.program, image), serial_count(image)) == "");
}

TEST_CASE("a stale entry is never used", "[histogram][cache]") {
  const ProgramCache cache = fresh_cache("stale");
  const Cl c;
  const std::string src = local_atomic().source;
  cache.build(c.context, c.device, src, options(2), "local_atomic.cl");
  const std::string built = cache.path_for(ProgramCache::key(c.device, src, options(2)));

  // Plant that binary where other options, or another source, would look.
  for (const auto& [other_src, other_opts] :
       {std::pair{src, options(4)}, {src + "// edited\n", options(2)}}) {
    const std::string target = cache.path_for(ProgramCache::key(c.device, other_src, other_opts));
    REQUIRE(target != built);
    fs::copy_file(built, target, fs::copy_options::overwrite_existing);
    std::string why;
    CHECK_FALSE(cache.load(c.context, c.device, other_src, other_opts, &why));
    CHECK_THAT(why, ContainsText("stale"));
    const auto rebuilt = cache.build(c.context, c.device, other_src, other_opts, "edited");
    CHECK_FALSE(rebuilt.from_cache);
    // The cold build replaced the planted file with a valid entry of its own.
    CHECK(cache.load(c.context, c.device, other_src, other_opts));
  }
  // What the cache now serves for the edited source is the edited program:
  // a source whose kernel counts nothing gives zeros, not local-atomic's counts.
  const std::string empty = counts_nothing(src);
  const std::string empty_path = cache.path_for(ProgramCache::key(c.device, empty, options(2)));
  fs::copy_file(built, empty_path, fs::copy_options::overwrite_existing);
  const auto served = cache.build(c.context, c.device, empty, options(2), "empty");
  CHECK_FALSE(served.from_cache);
  const RgbImage image = solid_rgb(50, 40, 1, 2, 3);
  const Counts counted = count_with(served.program, image);
  CHECK(std::count(counted.begin(), counted.end(), 0u) == kCounts);
}

TEST_CASE("a corrupt entry falls back to a cold build", "[histogram][cache]") {
  const ProgramCache cache = fresh_cache("corrupt");
  const Cl c;
  const std::string src = local_atomic().source;
  const std::string path = cache.path_for(ProgramCache::key(c.device, src, options(8)));
  cache.build(c.context, c.device, src, options(8), "local_atomic.cl");
  const std::string valid = test::read_file(path);
  REQUIRE(valid.size() > 64);
  std::string flipped = valid;
  flipped[flipped.size() - 20] ^= 0x5a;  // a byte of the binary
  const std::string key_text = ProgramCache::key_text(c.device, src, options(8));
  const auto refused = ProgramCache::encode_entry(key_text, std::vector<unsigned char>(64, 0xab));

  const std::vector<std::pair<std::string, std::string>> entries = {
      {"empty file", ""},
      {"garbage", "this is not a cache entry"},
      {"truncated", valid.substr(0, valid.size() / 2)},
      {"flipped byte", flipped},
      {"a binary the driver refuses", std::string(refused.begin(), refused.end())},
  };
  for (const auto& [what, bytes] : entries) {
    INFO(what);
    test::write_scratch("entry", bytes);
    fs::copy_file(test::scratch_dir() + "/entry", path, fs::copy_options::overwrite_existing);
    CHECK_FALSE(cache.load(c.context, c.device, src, options(8)));
    ProgramCache::Built b;
    REQUIRE_NOTHROW(b = cache.build(c.context, c.device, src, options(8), "local_atomic.cl"));
    CHECK_FALSE(b.from_cache);
    CHECK(cache.load(c.context, c.device, src, options(8)));  // repaired
  }
}

TEST_CASE("the cache lives in the user's cache folder and can be turned off",
          "[histogram][cache]") {
  const char* old_xdg = std::getenv("XDG_CACHE_HOME");
  const std::string saved = old_xdg ? old_xdg : "";
  conv::set_environment("XDG_CACHE_HOME", "/some/where");
  conv::unset_environment("CLCONV_NO_BINARY_CACHE");
  CHECK(ProgramCache::for_user(false).folder() == "/some/where/clconv/programs");
  CHECK_FALSE(ProgramCache::for_user(true).enabled());
  conv::set_environment("CLCONV_NO_BINARY_CACHE", "1");
  CHECK_FALSE(ProgramCache::for_user(false).enabled());
  conv::set_environment("CLCONV_NO_BINARY_CACHE", "0");
  CHECK(ProgramCache::for_user(false).enabled());
  conv::unset_environment("CLCONV_NO_BINARY_CACHE");
  if (old_xdg)
    conv::set_environment("XDG_CACHE_HOME", saved);
  else
    conv::unset_environment("XDG_CACHE_HOME");

  // A disabled cache neither reads nor writes anything.
  const ProgramCache off;
  const Cl c;
  CHECK_FALSE(off.build(c.context, c.device, local_atomic().source, options(8), "x").from_cache);
}

TEST_CASE("one cache folder: XDG_CACHE_HOME, else HOME/.cache, else none", "[histogram][cache]") {
  {
    const ScopedEnv xdg("XDG_CACHE_HOME", "/x/cache"), home("HOME", "/h");
    CHECK(conv::cache_dir("pocl") == "/x/cache/pocl");
    CHECK(conv::cache_dir("clconv/programs") == "/x/cache/clconv/programs");
  }
  {
    const ScopedEnv xdg("XDG_CACHE_HOME", ""), home("HOME", "/h");  // empty counts as unset
#if defined(__APPLE__)
    CHECK(conv::cache_dir("clconv") == "/h/Library/Caches/clconv");
#else
    CHECK(conv::cache_dir("clconv") == "/h/.cache/clconv");
#endif
  }
  const ScopedEnv xdg("XDG_CACHE_HOME", nullptr), home("HOME", nullptr);
  const ScopedEnv cache_on("CLCONV_NO_BINARY_CACHE", nullptr);
  CHECK(conv::cache_dir("pocl") == "");
  CHECK_FALSE(ProgramCache::for_user(false).enabled());
}

TEST_CASE("DeviceContext::program reads the binary cache only where it was turned on",
          "[histogram][cache]") {
  // A user cache folder holding, under local-atomic's key, the binary of a
  // kernel that counts nothing: a program served from it counts zeros.
  const std::string xdg = test::scratch_dir() + "/xdg-context";
  fs::remove_all(xdg);
  const ScopedEnv cache_home("XDG_CACHE_HOME", xdg.c_str());
  const ScopedEnv cache_on("CLCONV_NO_BINARY_CACHE", nullptr);
  const ProgramCache user = ProgramCache::for_user(false);
  REQUIRE(user.folder() == xdg + "/clconv/programs");
  const Cl c;
  const std::string src = local_atomic().source;
  const cl::Program nothing =
      ProgramCache::build_cold(c.context, c.device, counts_nothing(src), options(6), "empty");
  const auto binaries = nothing.getInfo<CL_PROGRAM_BINARIES>();
  REQUIRE(binaries.size() == 1);
  fs::create_directories(user.folder());
  // Under the options as given and as a PoCL context builds them (with -w:
  // common/core/device.cpp), whichever this device's context uses.
  auto as_built = [](const std::string& o) { return std::vector<std::string>{o, o + " -w"}; };
  for (const std::string& o : as_built(options(6))) {
    const auto entry = ProgramCache::encode_entry(ProgramCache::key_text(c.device, src, o), binaries[0]);
    test::write_scratch("planted", std::string(entry.begin(), entry.end()));
    fs::copy_file(test::scratch_dir() + "/planted", user.path_for(ProgramCache::key(c.device, src, o)),
                  fs::copy_options::overwrite_existing);
  }

  std::mt19937 rng(test::run_seed());
  const RgbImage image = test::random_image(53, 29, rng);
  INFO(test::seed_note());
  // The steps' way: compiled from source, the planted binary never read.
  conv::DeviceContext steps(tests_device());
  CHECK(describe_difference(
            count_with(steps.program(src, options(6), "local_atomic.cl"), image, steps),
            serial_count(image)) == "");
  // The histogram's way: the binary from the user's cache.
  conv::DeviceContext histogram(tests_device());
  histogram.use_binary_cache(user);
  const Counts served =
      count_with(histogram.program(src, options(6), "local_atomic.cl"), image, histogram);
  CHECK(std::count(served.begin(), served.end(), 0u) == kCounts);
  // What it builds itself, it stores.
  histogram.program(src, options(7), "local_atomic.cl");
  const auto stored = as_built(options(7));
  CHECK(std::any_of(stored.begin(), stored.end(), [&](const std::string& o) {
    return fs::exists(user.path_for(ProgramCache::key(c.device, src, o)));
  }));
}
