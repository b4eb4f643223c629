// The platform layer's files (common/machinery/platform/files.hpp), on the
// system the suite runs on: what is at a path, new files and replacing one
// atomically, the lock, the cache folder, the process and the environment.
#include "tests/catch.hpp"

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <thread>

#include "common/machinery/platform/files.hpp"
#include "tests/files.hpp"

using namespace conv;
namespace fs = std::filesystem;

namespace {

// A fresh folder for one test case, under the suite's scratch folder.
std::string fresh_folder(const std::string& name) {
  const std::string dir = test::scratch_dir() + "/platform-" + name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

void write_text(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

// Sets (or, given nullptr, removes) an environment variable for its lifetime.
class ScopedVariable {
 public:
  ScopedVariable(const std::string& name, const char* value) : name_(name) {
    const char* old = std::getenv(name.c_str());
    had_ = old != nullptr;
    if (had_) old_ = old;
    if (value)
      set_environment(name, value);
    else
      unset_environment(name);
  }
  ~ScopedVariable() {
    if (had_)
      set_environment(name_, old_);
    else
      unset_environment(name_);
  }
  ScopedVariable(const ScopedVariable&) = delete;
  ScopedVariable& operator=(const ScopedVariable&) = delete;

 private:
  std::string name_, old_;
  bool had_ = false;
};

// The files in `dir` whose names start with `prefix`.
std::vector<std::string> entries_starting(const std::string& dir, const std::string& prefix) {
  std::vector<std::string> found;
  for (const auto& entry : fs::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind(prefix, 0) == 0) found.push_back(name);
  }
  return found;
}

}  // namespace

TEST_CASE("platform: what is at a path, with and without following links", "[platform]") {
  const std::string dir = fresh_folder("status");
  const std::string file = dir + "/file.txt";
  write_text(file, "twelve bytes");
  std::error_code ec;

  FileStatus st = file_status(file, ec);
  CHECK_FALSE(ec);
  CHECK(st.kind == FileKind::regular);
  CHECK(st.size == 12);
  CHECK(file_status(dir, ec).kind == FileKind::directory);
  CHECK_FALSE(ec);

  st = file_status(dir + "/absent", ec);
  CHECK(st.kind == FileKind::missing);
  CHECK(ec == std::errc::no_such_file_or_directory);
  CHECK_FALSE(ec.message().empty());  // what the harness's messages quote
  link_status(dir + "/absent", ec);
  CHECK(ec == std::errc::no_such_file_or_directory);

  // A link: followed by file_status, not by link_status; a dangling one is
  // missing when followed and a link when not.
  const std::string link = dir + "/link";
  fs::create_symlink(file, link);
  CHECK(file_status(link, ec).kind == FileKind::regular);
  CHECK(file_status(link, ec).size == 12);
  CHECK(link_status(link, ec).kind == FileKind::symlink);
  CHECK_FALSE(ec);
  const std::string dangling = dir + "/dangling";
  fs::create_symlink(dir + "/nowhere", dangling);
  CHECK(file_status(dangling, ec).kind == FileKind::missing);
  CHECK(ec == std::errc::no_such_file_or_directory);
  CHECK(link_status(dangling, ec).kind == FileKind::symlink);
  CHECK_FALSE(ec);

  if (fs::exists("/dev/null")) CHECK(file_status("/dev/null", ec).kind == FileKind::device);

  CHECK(std::string(kind_text(FileKind::directory)) == "a directory");
  CHECK(std::string(kind_text(FileKind::fifo)) == "a FIFO");
  CHECK(std::string(kind_text(FileKind::device)) == "a device");
  CHECK(std::string(kind_text(FileKind::other)) == "a special file");
  CHECK(max_file_name_length() >= 255);
}

TEST_CASE("platform: a new file is never one that was there, nor made through a link", "[platform]") {
  const std::string dir = fresh_folder("new-file");
  const std::string existing = dir + "/existing";
  write_text(existing, "keep me");
  NewFile file;
  CHECK(file.open(existing) == std::errc::file_exists);
  CHECK_FALSE(file.is_open());
  CHECK(test::read_text(existing) == "keep me");

  // A dangling link: the file it names is not created.
  const std::string link = dir + "/link", target = dir + "/made-through-a-link";
  fs::create_symlink(target, link);
  CHECK(file.open(link) == std::errc::file_exists);
  CHECK_FALSE(fs::exists(target));

  const std::string fresh = dir + "/fresh";
  REQUIRE_FALSE(file.open(fresh));
  CHECK(file.is_open());
  CHECK_FALSE(file.write("abc", 3));
  CHECK_FALSE(file.write("", 0));
  CHECK_FALSE(file.close());
  CHECK_FALSE(file.is_open());
  CHECK(test::read_text(fresh) == "abc");

  // Temporaries: PREFIX + process id + "-" + counter, each new.
  NewFile a, b;
  std::string name_a, name_b;
  REQUIRE_FALSE(create_temporary_file(dir, ".clconv-test-", a, name_a));
  REQUIRE_FALSE(create_temporary_file(dir, ".clconv-test-", b, name_b));
  CHECK(name_a != name_b);
  const std::string expected = ".clconv-test-" + std::to_string(process_id()) + "-";
  CHECK(fs::path(name_a).filename().string().rfind(expected, 0) == 0);
  a.close();
  b.close();
  CHECK_FALSE(remove_file(name_a));
  CHECK_FALSE(remove_file(name_b));
  CHECK_FALSE(remove_file(name_b));  // already gone: no error
  CHECK(entries_starting(dir, ".clconv-test-").empty());
}

TEST_CASE("platform: a file is replaced whole, and nothing is left behind", "[platform]") {
  const std::string dir = fresh_folder("replace");
  const std::string target = dir + "/out.txt";
  const std::string one = "the old file\n", two = "the new file, longer than the old\n";

  REQUIRE(replace_file_contents(target, one.data(), one.size(), ".clconv-test-"));
  CHECK(test::read_text(target) == one);
  REQUIRE(replace_file_contents(target, two.data(), two.size(), ".clconv-test-"));
  CHECK(test::read_text(target) == two);
  CHECK(entries_starting(dir, ".clconv-test-").empty());

  // The mode: less the umask by default; exactly as asked with exact_mode.
  REQUIRE(replace_file_contents(target, one.data(), one.size(), ".clconv-test-", 0640, true));
  CHECK((fs::status(target).permissions() & fs::perms::all) ==
        (fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read));

  // A link at the target is replaced itself; what it named is untouched.
  const std::string precious = dir + "/precious.txt", link = dir + "/link.txt";
  write_text(precious, "keep me");
  fs::create_symlink(precious, link);
  REQUIRE(replace_file_contents(link, two.data(), two.size(), ".clconv-test-"));
  CHECK(fs::is_regular_file(fs::symlink_status(link)));
  CHECK(test::read_text(link) == two);
  CHECK(test::read_text(precious) == "keep me");

  // No folder: the temporary cannot be made.
  ReplaceResult r = replace_file_contents(dir + "/no-such-folder/out.txt", one.data(), one.size(), ".clconv-test-");
  CHECK_FALSE(r);
  CHECK(r.step == ReplaceStep::create);
  CHECK(r.error == std::errc::no_such_file_or_directory);

  // A folder in the way: the rename fails, the folder and its contents stay,
  // and the temporary is removed.
  const std::string folder = dir + "/a-folder";
  fs::create_directories(folder);
  write_text(folder + "/inside", "x");
  r = replace_file_contents(folder, one.data(), one.size(), ".clconv-test-");
  CHECK_FALSE(r);
  CHECK(r.step == ReplaceStep::rename);
  CHECK(fs::is_directory(folder));
  CHECK(test::read_text(folder + "/inside") == "x");
  CHECK(entries_starting(dir, ".clconv-test-").empty());
}

TEST_CASE("platform: a reader sees the old file or the new one, never a mix", "[platform]") {
  const std::string dir = fresh_folder("atomic");
  const std::string target = dir + "/contents";
  // Versions of different sizes, each one byte repeated: a torn read shows
  // two bytes or a size that is not a version's.
  std::vector<std::string> versions;
  for (int v = 0; v < 8; ++v) versions.push_back(std::string(static_cast<std::size_t>(4096 * (v + 1) + v), static_cast<char>('a' + v)));
  REQUIRE(replace_file_contents(target, versions[0].data(), versions[0].size(), ".clconv-test-"));
  std::atomic<bool> done{false};
  std::atomic<int> reads{0}, torn{0};
  std::thread reader([&] {
    const std::set<std::string> whole(versions.begin(), versions.end());
    while (!done) {
      std::ifstream in(target, std::ios::binary);
      const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
      if (!whole.count(text)) ++torn;  // also a missing file: "" is not a version
      ++reads;
    }
  });
  for (int round = 0; round < 400; ++round) {
    const std::string& v = versions[static_cast<std::size_t>(round) % versions.size()];
    REQUIRE(replace_file_contents(target, v.data(), v.size(), ".clconv-test-"));
  }
  while (reads < 50) std::this_thread::yield();
  done = true;
  reader.join();
  CHECK(torn == 0);
  CHECK(entries_starting(dir, ".clconv-test-").empty());
}

TEST_CASE("platform: a file lock excludes a second holder until it is released", "[platform]") {
  const std::string dir = fresh_folder("lock");
  const std::string path = dir + "/cache.lock";
  {
    FileLock first(path);
    REQUIRE(first.opened());
    CHECK(fs::is_regular_file(path));  // created
    CHECK(first.try_lock() == FileLock::Try::held);
    CHECK(first.try_lock() == FileLock::Try::held);  // already held: still held
    FileLock second(path);  // a second open, in the same process
    REQUIRE(second.opened());
    CHECK(second.try_lock() == FileLock::Try::busy);
    first.unlock();
    CHECK(second.try_lock() == FileLock::Try::held);
    CHECK(first.try_lock() == FileLock::Try::busy);
  }
  FileLock again(path);  // both gone: the lock is free
  CHECK(again.try_lock() == FileLock::Try::held);
  CHECK(test::read_text(path).empty());  // a lock file is never written
}

TEST_CASE("platform: a file lock excludes another process, and is released with its holder", "[platform]") {
  // flock(1), where installed, takes the same lock from another process.
  if (std::system("flock -V > /dev/null 2>&1") != 0) {
    WARN("SKIPPED: flock(1) is not installed: the other-process case is not run");
    return;
  }
  const std::string dir = fresh_folder("lock-process");
  const std::string path = dir + "/cache.lock";
  // Exits 0 when the other process could take the lock at once, 7 when it
  // found it held.
  const std::string other = "flock -n -E 7 '" + path + "' true";
  {
    FileLock lock(path);
    REQUIRE(lock.try_lock() == FileLock::Try::held);
    CHECK(std::system((other + "; test $? -eq 7").c_str()) == 0);  // found it held
  }
  CHECK(std::system(other.c_str()) == 0);  // released with the object
  // The other way round: a process holding it for a second, this one busy.
  const std::string holder = "flock -x '" + path + "' sleep 2 > /dev/null 2>&1 &";
  REQUIRE(std::system(holder.c_str()) == 0);
  FileLock lock(path);
  FileLock::Try seen = FileLock::Try::held;
  for (int i = 0; i < 100 && (seen = lock.try_lock()) == FileLock::Try::held; ++i) {
    lock.unlock();  // the holder may not have started yet
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  CHECK(seen == FileLock::Try::busy);
  for (int i = 0; i < 500 && lock.try_lock() != FileLock::Try::held; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  CHECK(lock.try_lock() == FileLock::Try::held);
}

TEST_CASE("platform: a lock file is never a link, a folder or anything but a file", "[platform]") {
  const std::string dir = fresh_folder("lock-refusals");
  const std::string precious = dir + "/precious.txt";
  write_text(precious, "keep me");
  const std::string link = dir + "/linked.lock";
  fs::create_symlink(precious, link);
  FileLock through_link(link);
  CHECK_FALSE(through_link.opened());
  CHECK(through_link.try_lock() == FileLock::Try::unavailable);
  CHECK(fs::is_symlink(link));
  CHECK(test::read_text(precious) == "keep me");

  const std::string dangling = dir + "/dangling.lock", absent = dir + "/made-through-a-link";
  fs::create_symlink(absent, dangling);
  CHECK_FALSE(FileLock(dangling).opened());
  CHECK_FALSE(fs::exists(absent));

  fs::create_directories(dir + "/folder.lock");
  CHECK_FALSE(FileLock(dir + "/folder.lock").opened());
  CHECK_FALSE(FileLock(dir + "/no-such-folder/x.lock").opened());
}

TEST_CASE("platform: the user's cache folder honours XDG_CACHE_HOME, else HOME", "[platform]") {
  {
    const ScopedVariable xdg("XDG_CACHE_HOME", "/x/cache"), home("HOME", "/h");
    CHECK(user_cache_root() == "/x/cache");
  }
  {
    const ScopedVariable xdg("XDG_CACHE_HOME", ""), home("HOME", "/h");  // empty counts as unset
#if defined(__APPLE__)
    CHECK(user_cache_root() == "/h/Library/Caches");
#else
    CHECK(user_cache_root() == "/h/.cache");
#endif
  }
  {
    const ScopedVariable xdg("XDG_CACHE_HOME", nullptr), home("HOME", "");
    CHECK(user_cache_root() == "");
    CHECK(user_cache_root_unset() == "neither XDG_CACHE_HOME nor HOME is set");
  }
}

TEST_CASE("platform: the environment, the process and the user", "[platform]") {
  const std::string name = "CLCONV_PLATFORM_TEST_VARIABLE";
  {
    const ScopedVariable unset(name, nullptr);
    set_environment(name, "first");
    REQUIRE(std::getenv(name.c_str()) != nullptr);
    CHECK(std::string(std::getenv(name.c_str())) == "first");
    set_environment(name, "second", /*overwrite=*/false);  // kept
    CHECK(std::string(std::getenv(name.c_str())) == "first");
    set_environment(name, "third");
    CHECK(std::string(std::getenv(name.c_str())) == "third");
    unset_environment(name);
    CHECK(std::getenv(name.c_str()) == nullptr);
    set_environment(name, "fourth", /*overwrite=*/false);  // nothing to keep
    CHECK(std::string(std::getenv(name.c_str())) == "fourth");
  }
  CHECK(std::getenv(name.c_str()) == nullptr);

  CHECK(process_id() > 0);
  if (fs::is_symlink("/proc/self"))  // Linux: /proc/self names this process
    CHECK(fs::read_symlink("/proc/self").string() == std::to_string(process_id()));
  const std::string tag = user_tag();
  REQUIRE_FALSE(tag.empty());
  CHECK(tag.find_first_not_of("0123456789") == std::string::npos);  // a user id
  CHECK(physical_memory_bytes() >= (std::uint64_t{64} << 20));
  const std::tm day = utc_time(86400 * 365 + 86400 * 31 + 3600 * 5);  // 1971-02-01 05:00 UTC
  CHECK(day.tm_year == 71);
  CHECK(day.tm_mon == 1);
  CHECK(day.tm_mday == 1);
  CHECK(day.tm_hour == 5);
}

TEST_CASE("platform: a folder is made the user's alone", "[platform]") {
  const std::string dir = fresh_folder("private");
  fs::permissions(dir, fs::perms::all);
  restrict_folder_to_user(dir);
  CHECK((fs::status(dir).permissions() & fs::perms::all) == fs::perms::owner_all);
}
