// The grader's caps on a case as a whole (disk, memory, threads), the
// removal of any tree a case leaves, a runner that holds no reference
// kernel, and the command-line edges of --report and --case-timeout.
#include "tests/catch.hpp"

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "common/machinery/device_choice.hpp"
#include "common/machinery/guard.hpp"
#include "common/machinery/platform/process.hpp"
#include "common/machinery/program_cache.hpp"
#include "common/machinery/reference.hpp"
#include "common/machinery/registry.hpp"
#include "common/machinery/report.hpp"
#include "common/machinery/settings.hpp"
#include "coursework/case_caps.hpp"
#include "coursework/case_run.hpp"
#include "coursework/report.hpp"
#include "tests/files.hpp"
#include "tests/process.hpp"

namespace fs = std::filesystem;
using namespace conv::grade;
using conv::test::read_text;

namespace {

// A shell line run as a case would be, with the caps in `caps`.
conv::ChildResult run_shell(const fs::path& dir, const std::string& line, const CaseCaps& caps) {
  conv::ChildSpec spec;
  spec.argv = {"/bin/sh", "-c", line};
  spec.timeout_s = 60;
  spec.out_path = (dir / "out").string();
  spec.err_path = (dir / "err").string();
  spec.over_cap = cap_check(caps);
  return conv::run_child(spec);
}

}  // namespace

TEST_CASE("the case runner holds no step's own kernel", "[grade][sandbox]") {
  const std::string runner = read_text(fs::path(CLCONV_BIN_DIR) / "grade-case");
  REQUIRE(runner.size() > 100000);
  for (const auto& step : conv::all_steps()) {
    const std::string source = step->embedded_source();
    if (source.empty()) continue;
    std::istringstream lines(source);
    int checked = 0;
    for (std::string line; std::getline(lines, line);) {
      const auto b = line.find_first_not_of(" \t");
      if (b == std::string::npos || line.size() - b < 30) continue;
      ++checked;
      INFO(step->name() << "'s line: " << line);
      CHECK(runner.find(line.substr(b)) == std::string::npos);
    }
    INFO(step->name());
    CHECK(checked >= 3);
  }
}

TEST_CASE("a case is killed for the disk, memory or threads of all its processes together", "[grade]") {
  const fs::path dir = fs::path(conv::test::scratch_dir()) / "caps";
  fs::create_directories(dir / "work");
  SECTION("disk: four files, each under any per-file limit") {
    CaseCaps caps;
    caps.disk_folder = (dir / "work").string();
    caps.disk_bytes = 8u << 20;
    const auto r = run_shell(dir, "cd " + caps.disk_folder + " && for i in 1 2 3 4; do "
                             "head -c 3000000 /dev/urandom > f$i; done; sleep 50", caps);
    CHECK_FALSE(r.timed_out);
    CHECK(r.over_cap == "used more than 8 MiB of disk");
    CHECK(disk_use(caps.disk_folder).bytes > caps.disk_bytes);
    // The verdict: a crash that names the cap.
    Case c;
    c.title = "4096x4096";
    CaseContext context;
    context.test = &c;
    const CaseOutcome o = judge(context, r, (dir / "work" / "none").string());
    CHECK(o.verdict == Verdict::crash);
    CHECK_THAT(o.reason, ContainsText("used more than 8 MiB of disk"));
  }
  SECTION("memory: three processes, each under the cap alone") {
    CaseCaps caps;
    caps.tree_memory_bytes = 96u << 20;
    const auto r = run_shell(dir, "for i in 1 2 3; do sh -c 'x=$(head -c 48000000 /dev/zero | tr \"\\000\" a); "
                             "sleep 50' & done; wait", caps);
    CHECK_FALSE(r.timed_out);
    CHECK(r.over_cap == "used more than 96 MiB of memory (its processes together)");
  }
  SECTION("threads and processes") {
    CaseCaps caps;
    caps.tree_threads = 10;
    const auto r = run_shell(dir, "for i in 1 2 3 4 5 6 7 8 9 10 11 12; do sleep 50 & done; wait", caps);
    CHECK_FALSE(r.timed_out);
    CHECK_THAT(r.over_cap, ContainsText("more than 10 threads"));
  }
  SECTION("a case within its caps runs to its end") {
    CaseCaps caps;
    caps.disk_folder = (dir / "work").string();
    caps.disk_bytes = 8u << 20;
    caps.tree_memory_bytes = std::uint64_t{1} << 30;
    caps.tree_threads = 64;
    const auto r = run_shell(dir, "echo small > " + caps.disk_folder + "/f; sleep 0.5; exit 3", caps);
    CHECK(r.over_cap.empty());
    CHECK(r.status == 3);
  }
  remove_tree((dir / "work").string());
}

TEST_CASE("a folder tree of any depth is removed", "[grade]") {
  const fs::path top = fs::path(conv::test::scratch_dir()) / "deep";
  fs::create_directories(top);
  // 3,000 levels: longer than any path, deeper than the open-file limit set
  // below, which std::filesystem::remove_all needs one descriptor a level of.
  int fd = open(top.c_str(), O_RDONLY | O_DIRECTORY);
  REQUIRE(fd >= 0);
  for (int level = 0; level < 3000; ++level) {
    REQUIRE(mkdirat(fd, "d", 0755) == 0);
    const int next = openat(fd, "d", O_RDONLY | O_DIRECTORY);
    REQUIRE(next >= 0);
    close(fd);
    fd = next;
  }
  const int file = openat(fd, "file", O_WRONLY | O_CREAT, 0644);
  CHECK(file >= 0);
  close(file);
  close(fd);
  rlimit before{};
  REQUIRE(getrlimit(RLIMIT_NOFILE, &before) == 0);
  rlimit low = before;
  low.rlim_cur = std::min<rlim_t>(before.rlim_cur, 256);
  setrlimit(RLIMIT_NOFILE, &low);
  const bool removed = remove_tree(top.string());
  setrlimit(RLIMIT_NOFILE, &before);
  CHECK(removed);
  CHECK_FALSE(fs::exists(fs::symlink_status(top)));
  CHECK(remove_tree(top.string()));  // nothing there: nothing to do
}

TEST_CASE("grade's edges: a report through a link, strict seconds, one progress line", "[grade][cli]") {
  const fs::path dir = fs::path(conv::test::scratch_dir()) / "report-link";
  fs::create_directories(dir / "class");
  std::ofstream(dir / "class" / "inline.cl") << "__kernel void k() { __asm__(\"nop\"); }\n";
  const std::string cls = (dir / "class").string();
  fs::create_symlink("/no/such/folder/x.csv", dir / "dangling.csv");
  for (const auto& args : std::vector<std::vector<std::string>>{
           {"--report", (dir / "dangling.csv").string()},
           {"--case-timeout", "5s"},
           {"--case-timeout", "0x10"},
           {"--case-timeout", "1e3"},
           {"--case-timeout", "0.01"}}) {
    std::vector<std::string> all = {"--step", "1", cls, "--no-oclgrind", "--no-sandbox"};
    all.insert(all.end(), args.begin(), args.end());
    const auto r = conv::test::run_program("grade", all);
    INFO(args.front() << " " << args.back() << ": " << r.err);
    CHECK(r.status == 2);
    CHECK(r.err_lines() == 1);
    CHECK_THAT(r.err, ContainsText(args.front()));
  }
  // A link to a file in a folder that exists: written through, the link kept.
  std::ofstream(dir / "grades.csv") << "old\n";
  fs::create_symlink(dir / "grades.csv", dir / "link.csv");
  const auto r = conv::test::run_program("grade", {"--step", "1", cls, "--no-oclgrind", "--no-sandbox",
                                                   "--case-timeout", "30", "--report", (dir / "link.csv").string()});
  INFO(r.err);
  CHECK(r.status == 0);
  CHECK(fs::is_symlink(dir / "link.csv"));
  CHECK_THAT(read_text(dir / "grades.csv"), ContainsText("inline,step1-naive,forbidden,"));

  Grade g;
  g.student = "new\nline";
  g.cases_total = 7;
  CHECK(progress_line(g, 1, 1).find('\n') == std::string::npos);
  CHECK_THAT(progress_line(g, 1, 1), ContainsText("new\\nline"));
}
