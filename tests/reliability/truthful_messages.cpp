// Messages that tell the truth: an unusable POCL_CACHE_DIR is named (an
// empty one counts as unset), the caches never write through a link, cached
// device limits no device has are measured again, "measuring the device
// limits" is said only when measuring, a lock held on the limits cache is
// waited on only so long, and a write past a buffer names the element, not
// a work-item that may not exist. docs/reliability.md lists each.
#include "tests/catch.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "tests/files.hpp"
#include "tests/reliability/refusal_checks.hpp"
#include "tests/support.hpp"

using namespace conv::test;
namespace fs = std::filesystem;

namespace {

bool on_pocl() {
  return device().facts().platform.find("Portable Computing Language") != std::string::npos;
}

// A program that reads the limits cache and is quick about the rest.
Outcome bank_run(const Env& env) {
  return run_program("step6-bank", {"--image", "synthetic:16x16", "--bank", "1", "--reps", "1"}, env, 300);
}

const std::string kMeasuring = "measuring the device limits";

// Everything a run said, an attempt rerun after LeakSanitizer's tracer
// crashed included: that attempt measured and filled the cache, so its
// rerun only reads it.
std::string said(const Outcome& r) { return r.crashed_err + r.err; }

}  // namespace

TEST_CASE("an unusable POCL_CACHE_DIR is named in the error", "[kept][device]") {
  if (!on_pocl()) {
    WARN("SKIPPED: not PoCL");
    return;
  }
  const std::string file = write_scratch("not-a-folder", "x");
  for (const std::string& dir : {file, std::string("/proc/no-such-cache"), file + "/below-a-file"}) {
    // Kernels cached from an earlier run would need no cache folder.
    const Outcome r = run_program("step1-naive", {"--image", "synthetic:8x8", "--reps", "1", "--filter", "random:3"},
                                  {{"POCL_CACHE_DIR", dir}, {"POCL_KERNEL_CACHE", "0"}});
    INFO(dir << ": status " << r.status << ", stderr:\n" << r.err);
    CHECK(r.signal == 0);
    CHECK(r.err.find("install an ICD") == std::string::npos);
    if (r.status == 0) continue;  // a PoCL that does without: nothing to explain
    CHECK(r.status == 1);
    CHECK(r.err_lines() == 1);
    CHECK(r.err.find("POCL_CACHE_DIR=" + dir) != std::string::npos);
  }
}

TEST_CASE("an empty POCL_CACHE_DIR counts as unset", "[kept][device]") {
  // PoCL itself stops the process with an assertion on an empty cache
  // folder name: every tool removes the empty variable first.
  const Env env = {{"POCL_CACHE_DIR", ""}, {"XDG_CACHE_HOME", fresh_dir("empty-pocl-cache")}};
  const std::string kernel = CLCONV_SOURCE_DIR "/step1-naive/convolve.cl";
  for (const auto& [program, args] : std::vector<std::pair<std::string, std::vector<std::string>>>{
           {"step1-naive", {"--image", "synthetic:32x32", "--reps", "1"}},
           {"step1-naive", {"--image", "synthetic:32x32", "--reps", "1", "--kernel", kernel}},
           {"histogram", {"--image", "synthetic:32x32", "--variant", "local-atomic", "--reps", "1"}},
           {"kernel-info", {"--step", "1", "--filter", "box:3"}}}) {
    const Outcome r = run_program(program, args, env, 300);
    INFO(program << ": status " << r.status << ", signal " << r.signal << ", stderr:\n" << r.err);
    CHECK(r.signal == 0);
    CHECK(r.status == 0);
    CHECK(r.err.find("SIGABRT") == std::string::npos);
  }
}

TEST_CASE("the limits cache never writes through a link or into a file it did not make", "[kept][limits]") {
  // A file in a temporary folder stands for a file the user cares about:
  // a link to it at the cache's path (and at its lock's) leaves it as it
  // was, and the link stays a link.
  const std::string cache = fresh_dir("linked-cache");
  fs::create_directories(cache + "/clconv");
  const std::string precious = write_scratch("precious.txt", "keep me\n");
  const std::string file = cache + "/clconv/limits.tsv";
  fs::create_symlink(precious, file);
  fs::create_symlink(precious, file + ".lock");
  const Outcome r = bank_run({{"XDG_CACHE_HOME", cache}});
  INFO(r.err);
  CHECK(r.status == 0);
  CHECK(read_text(precious) == "keep me\n");
  CHECK(fs::is_symlink(file));
  CHECK(fs::is_symlink(file + ".lock"));
  // A link to a file that does not exist yet is not followed either.
  fs::remove(file);
  const std::string absent = fresh_dir("link-target") + "/made-through-a-link";
  fs::create_symlink(absent, file);
  CHECK(bank_run({{"XDG_CACHE_HOME", cache}}).status == 0);
  CHECK_FALSE(fs::exists(absent));
  // With no link there, the cache is written, and holds only a new file.
  fs::remove(file);
  CHECK(bank_run({{"XDG_CACHE_HOME", cache}}).status == 0);
  CHECK(fs::is_regular_file(fs::symlink_status(file)));
  CHECK(read_text(precious) == "keep me\n");
  for (const auto& entry : fs::directory_iterator(cache + "/clconv"))  // no temporary file left
    CHECK(entry.path().filename().string().rfind(".clconv-cache-", 0) != 0);
}

TEST_CASE("the program cache never writes through a link", "[kept][limits]") {
  // Every entry of a first run made into a link to a file in a temporary
  // folder: a second run that rebuilds them leaves that file as it was.
  const std::string cache = fresh_dir("linked-programs");
  const Env env = {{"XDG_CACHE_HOME", cache}, {"CLCONV_NO_BINARY_CACHE", "0"}};  // the histogram keeps one
  const std::vector<std::string> args = {"--image", "synthetic:16x16", "--variant", "local-atomic", "--reps", "1"};
  REQUIRE(run_program("histogram", args, env, 300).status == 0);
  const std::string folder = cache + "/clconv/programs";
  std::vector<fs::path> entries;
  for (const auto& entry : fs::directory_iterator(folder)) entries.push_back(entry.path());
  REQUIRE_FALSE(entries.empty());
  const std::string precious = write_scratch("precious-program.txt", "keep me too\n");
  for (const auto& entry : entries) {
    fs::remove(entry);
    fs::create_symlink(precious, entry);
  }
  const Outcome r = run_program("histogram", args, env, 300);
  INFO(r.err);
  CHECK(r.status == 0);
  CHECK(read_text(precious) == "keep me too\n");
  for (const auto& entry : entries) CHECK(fs::is_symlink(entry));
}

TEST_CASE("device limits: measured only when needed, and said so only then", "[kept][limits]") {
  const std::string cache = fresh_dir("measure");
  const Env env = {{"XDG_CACHE_HOME", cache}};
  const std::string file = cache + "/clconv/limits.tsv";
  const Outcome first = bank_run(env);
  INFO(first.err);
  REQUIRE(first.status == 0);
  CHECK(said(first).find(kMeasuring) != std::string::npos);
  const Outcome second = bank_run(env);
  INFO(second.err);
  CHECK(second.status == 0);
  CHECK(said(second).find(kMeasuring) == std::string::npos);  // read from the cache

  // Figures below any device (0.01 GB/s copied, 0.5 GFLOP/s) are measured
  // again, and replaced in the cache.
  const std::string text = read_text(file);
  const auto tab = text.find('\t');
  REQUIRE(tab != std::string::npos);
  for (const std::string figures : {"0.01\t50", "50\t0.5", "0.01\t0.01"}) {
    { std::ofstream(file) << text.substr(0, tab) << "\t" << figures << "\n"; }
    const Outcome again = bank_run(env);
    INFO(figures << ": " << again.err);
    CHECK(again.status == 0);
    CHECK(said(again).find(kMeasuring) != std::string::npos);
    CHECK(read_text(file).find("\t" + figures + "\n") == std::string::npos);
  }
}

TEST_CASE("a lock held on the limits cache is waited on only so long", "[kept][limits]") {
  const std::string cache = fresh_dir("locked");
  fs::create_directories(cache + "/clconv");
  const std::string lock = cache + "/clconv/limits.tsv.lock";
  const int fd = ::open(lock.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  REQUIRE(fd >= 0);
  REQUIRE(::flock(fd, LOCK_EX) == 0);  // held by this process for the whole run
  const Outcome r = bank_run({{"XDG_CACHE_HOME", cache}, {"CLCONV_LIMITS_LOCK_WAIT", "1"}});
  ::close(fd);
  INFO(r.err);
  CHECK_FALSE(r.timed_out);
  CHECK(r.status == 0);
  CHECK(r.err.find(kMeasuring + " without the cache: " + lock + " was held by another program") !=
        std::string::npos);
  CHECK_FALSE(fs::exists(cache + "/clconv/limits.tsv"));  // neither read nor written
}

TEST_CASE("a write past the output names the element and its row and column", "[kept][guards]") {
  // A 1x1 output in a 16x16 group: 255 work-items past the image write.
  // The first element past the buffer is element 1, row 1, past its only row.
  const std::string guardless = CLCONV_SOURCE_DIR "/tests/reliability/broken/step1-no-range-guard.cl";
  const Outcome r = expect_refusal("step1-naive", {"--image", "synthetic:1x1", "--filter", "box:1", "--wg", "16x16",
                                                   "--kernel", guardless},
                                   1, "wrote past the end of the output: element 1 (row 1, column 0");
  CHECK(r.err.find("its last row is 0") != std::string::npos);
  CHECK(r.err.find("work-item") == std::string::npos);
}
