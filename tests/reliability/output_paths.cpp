// What stands at an --output path: a symbolic link is written through to
// its target; a FIFO, a device or a socket is refused before any work and
// left as it was; a file name of the longest legal length is written
// (the temporary file beside it has a short name). docs/reliability.md,
// "What is refused, and why".
#include "tests/catch.hpp"

#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <climits>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "tests/files.hpp"
#include "tests/reliability/refusal_checks.hpp"
#include "tests/support.hpp"

using namespace conv::test;
namespace fs = std::filesystem;

namespace {

// Nothing but `kept` in `dir`: no temporary file left behind.
void expect_only(const std::string& dir, const std::vector<std::string>& kept) {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(dir)) names.push_back(entry.path().filename().string());
  std::sort(names.begin(), names.end());
  std::vector<std::string> expected = kept;
  std::sort(expected.begin(), expected.end());
  CHECK(names == expected);
}

// The programs that write an output file, and a name each accepts.
struct Writer {
  std::string program, extension;
  std::vector<std::string> args;
};
std::vector<Writer> writers() {
  return {{"step1-naive", ".pfm", {"--image", "synthetic:9x7", "--reps", "1"}},
          {"histogram", ".csv", {"--image", "synthetic:9x7", "--variant", "serial", "--reps", "1"}},
          {"sweep", ".csv", {"--steps", "1", "--images", "9x7", "--reps", "1"}}};
}

Outcome run_with_output(const Writer& w, const std::string& output, bool no_device = false) {
  std::vector<std::string> args = w.args;
  args.insert(args.end(), {"--output", output});
  // A platform that matches nothing: the run fails at the device, so a
  // refusal that names the output came before any work.
  if (no_device) args.insert(args.end(), {"--platform", "no-such-platform"});
  return run_program(w.program, args);
}

}  // namespace

TEST_CASE("an output through a symbolic link replaces its target and keeps the link", "[kept][outputs]") {
  for (const auto& w : writers()) {
    const std::string dir = fresh_dir("symlink");
    const std::string target = dir + "/real" + w.extension, link = dir + "/link" + w.extension;
    { std::ofstream(target) << "old"; }
    REQUIRE(::symlink(("real" + w.extension).c_str(), link.c_str()) == 0);  // relative, as people make them
    const Outcome r = run_with_output(w, link);
    INFO(w.program << ": " << r.err);
    CHECK(r.status == 0);
    CHECK(fs::is_symlink(link));
    CHECK(read_text(target) != "old");
    CHECK(read_text(target).size() > 10);
    expect_only(dir, {"link" + w.extension, "real" + w.extension});
    // A link to a file that does not exist yet: the file is created.
    const std::string dangling = dir + "/new-link" + w.extension;
    REQUIRE(::symlink((dir + "/created" + w.extension).c_str(), dangling.c_str()) == 0);
    const Outcome d = run_with_output(w, dangling);
    INFO(d.err);
    CHECK(d.status == 0);
    CHECK(fs::is_symlink(dangling));
    CHECK(fs::is_regular_file(dir + "/created" + w.extension));
  }
}

TEST_CASE("a FIFO, a device or a socket at the output is refused before any work and kept",
          "[kept][outputs]") {
  for (const auto& w : writers()) {
    const std::string dir = fresh_dir("special");
    // A FIFO: opening it to write would block; replacing it destroys it.
    const std::string fifo = dir + "/pipe" + w.extension;
    REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
    const Outcome f = run_with_output(w, fifo, true);
    INFO(w.program << ": " << f.err);
    CHECK_FALSE(f.timed_out);
    CHECK(f.signal == 0);
    CHECK(f.status == 1);
    CHECK(f.err_lines() == 1);
    CHECK(f.err.find(fifo + ": is a FIFO, not a regular file") != std::string::npos);
    struct stat st;
    REQUIRE(::lstat(fifo.c_str(), &st) == 0);
    CHECK(S_ISFIFO(st.st_mode));
    // A link to a device: refused, and /dev/null stays a device.
    const std::string to_null = dir + "/null" + w.extension;
    REQUIRE(::symlink("/dev/null", to_null.c_str()) == 0);
    const Outcome n = run_with_output(w, to_null, true);
    INFO(n.err);
    CHECK(n.status == 1);
    CHECK(n.err.find(to_null + ": is a device") != std::string::npos);
    REQUIRE(::stat("/dev/null", &st) == 0);
    CHECK(S_ISCHR(st.st_mode));
    // A socket.
    const std::string sock = dir + "/s" + w.extension;
    const int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
    REQUIRE(fd >= 0);
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    REQUIRE(sock.size() < sizeof address.sun_path);
    std::strcpy(address.sun_path, sock.c_str());
    REQUIRE(::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0);
    const Outcome s = run_with_output(w, sock, true);
    ::close(fd);
    INFO(s.err);
    CHECK(s.status == 1);
    CHECK(s.err.find(sock + ": is a socket") != std::string::npos);
    // A device node of its own (root only: mknod), as the issue found destroyed.
    if (::geteuid() == 0) {
      const std::string node = dir + "/node" + w.extension;
      REQUIRE(::mknod(node.c_str(), S_IFCHR | 0600, makedev(1, 3)) == 0);
      const Outcome d = run_with_output(w, node, true);
      INFO(d.err);
      CHECK(d.status == 1);
      CHECK(d.err.find(node + ": is a device") != std::string::npos);
      REQUIRE(::lstat(node.c_str(), &st) == 0);
      CHECK(S_ISCHR(st.st_mode));
    }
  }
}

TEST_CASE("an output file name of the longest legal length is written", "[kept][outputs]") {
  std::mt19937 rng(run_seed());
  INFO(seed_note());
  for (const auto& w : writers()) {
    const std::string dir = fresh_dir("long");
    // NAME_MAX bytes, extension included, of random letters.
    std::string name(NAME_MAX - w.extension.size(), 'a');
    for (char& c : name) c = static_cast<char>('a' + rng() % 26);
    name += w.extension;
    REQUIRE(name.size() == NAME_MAX);
    const Outcome r = run_with_output(w, dir + "/" + name);
    INFO(w.program << ": " << r.err);
    CHECK(r.status == 0);
    CHECK(fs::is_regular_file(dir + "/" + name));
    expect_only(dir, {name});
  }
}
