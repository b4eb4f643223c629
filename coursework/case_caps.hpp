// What a whole case uses while it runs, for the grader's per-case caps
// (docs/coursework.md, "The sandbox"): the kernel's limits on address
// space and file size hold for each process alone, so the grader also adds
// up the case's disk and memory itself, and removes any tree a case left.
#pragma once
#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <string>

#include "common/machinery/platform/process.hpp"

namespace conv::grade {

// The disk a folder's tree takes (allocated blocks, no symbolic link
// followed, a file with several links counted each time), read without
// following more than kMaxDepth levels or kMaxEntries entries.
struct DiskUse {
  std::uint64_t bytes = 0;
  bool too_deep = false, too_many = false;
};
constexpr int kMaxDepth = 64;
constexpr std::size_t kMaxEntries = 100000;
DiskUse disk_use(const std::string& folder);

// The processes of the tree under `pid` (it included): how many, their
// threads, and the sum of their resident memory (VmRSS; pages two of them
// share are counted twice).
struct TreeUse {
  int processes = 0, threads = 0;
  std::uint64_t resident_bytes = 0;
};
TreeUse tree_use(pid_t pid);

// How many tasks (processes and threads) run with real user ID `uid` now:
// what RLIMIT_NPROC counts for that user, read from /proc.
int user_tasks(uid_t uid);

// The caps on a case as a whole (0: none): the disk used under
// disk_folder, and the resident memory and the threads of the case's whole
// process tree.
struct CaseCaps {
  std::string disk_folder;
  std::uint64_t disk_bytes = 0, tree_memory_bytes = 0;
  int tree_threads = 0;
};

// The check run_child polls while a case runs (ChildSpec::over_cap): the
// cap the case is over, in words ("used more than 1 GiB of disk"); "" while
// it is within all of them.
std::function<std::string(ProcessId)> cap_check(const CaseCaps& caps);

// Removes `path` and everything under it, however deep (std::filesystem's
// remove_all gives up on a tree deeper than the open-file limit; then
// coreutils' `rm -rf --one-file-system` does it). False if it is still there.
bool remove_tree(const std::string& path);

// "1 GiB", "4.5 GiB", "512 MiB".
std::string bytes_text(std::uint64_t bytes);

}  // namespace conv::grade
