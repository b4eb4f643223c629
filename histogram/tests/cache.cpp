// The program-binary cache: a warm build comes from disk, and nothing built
// for another source, other options or another device is ever used; a
// corrupt or refused entry means a cold build, never a crash.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>

#include "histogram/device_histogram.hpp"
#include "histogram/tests/support.hpp"

using namespace conv::histogram;
using Catch::Matchers::Contains;
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

// Counts an image with `program` (built from local-atomic's source).
Counts count_with(const cl::Program& program, const RgbImage& image) {
  const Plan plan = make_plan(local_atomic(), image.pixels(), Settings(), test::facts());
  DeviceHistogram dh(test::cl().context, plan);
  dh.upload(test::cl().queue, image);
  dh.set_program(program, test::cl().device);
  dh.poison(test::cl().queue);
  cl::Event::waitForEvents(dh.enqueue(test::cl().queue));
  dh.read_back(test::cl().queue);
  return dh.finish();
}

}  // namespace

TEST_CASE("the cache key changes with source, options and device facts", "[histogram][cache]") {
  const auto& dev = test::cl().device;
  const std::string src = local_atomic().source;
  const std::string k = ProgramCache::key(dev, src, options(8));
  CHECK(k.size() == 32);
  CHECK(k == ProgramCache::key(dev, src, options(8)));
  CHECK(k != ProgramCache::key(dev, src, options(4)));
  CHECK(k != ProgramCache::key(dev, src + "\n", options(8)));
  CHECK(k != ProgramCache::key(dev, find_variant("local-words").source, options(8)));
  // The device and the driver are part of what is hashed.
  const std::string text = ProgramCache::key_text(dev, src, options(8));
  CHECK_THAT(text, Contains(test::facts().name) && Contains(test::facts().driver) &&
                       Contains(options(8)) && Contains(src));
}

TEST_CASE("a second build is warm and counts the same", "[histogram][cache]") {
  const ProgramCache cache = fresh_cache("warm");
  const auto& c = test::cl();
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
  const auto& c = test::cl();
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
    CHECK_THAT(why, Contains("stale"));
    const auto rebuilt = cache.build(c.context, c.device, other_src, other_opts, "edited");
    CHECK_FALSE(rebuilt.from_cache);
    // The cold build replaced the planted file with a valid entry of its own.
    CHECK(cache.load(c.context, c.device, other_src, other_opts));
  }
  // What the cache now serves for the edited source is the edited program:
  // a source whose kernel counts nothing gives zeros, not local-atomic's counts.
  std::string empty = src;
  const std::string body = "__kernel void count(";
  REQUIRE(empty.find(body) != std::string::npos);
  empty.replace(empty.find(body), body.size(), "__kernel void unused(");
  empty +=
      "\n__kernel void count(__global const uchar* rgb, const uint pixels, const uint chunk,\n"
      "                    __global uint* histogram) {}\n";
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
  const auto& c = test::cl();
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
  setenv("XDG_CACHE_HOME", "/some/where", 1);
  unsetenv("CLCONV_NO_BINARY_CACHE");
  CHECK(ProgramCache::for_user(false).folder() == "/some/where/clconv/programs");
  CHECK_FALSE(ProgramCache::for_user(true).enabled());
  setenv("CLCONV_NO_BINARY_CACHE", "1", 1);
  CHECK_FALSE(ProgramCache::for_user(false).enabled());
  setenv("CLCONV_NO_BINARY_CACHE", "0", 1);
  CHECK(ProgramCache::for_user(false).enabled());
  unsetenv("CLCONV_NO_BINARY_CACHE");
  if (old_xdg)
    setenv("XDG_CACHE_HOME", saved.c_str(), 1);
  else
    unsetenv("XDG_CACHE_HOME");

  // A disabled cache neither reads nor writes anything.
  const ProgramCache off;
  const auto& c = test::cl();
  CHECK_FALSE(off.build(c.context, c.device, local_atomic().source, options(8), "x").from_cache);
}
