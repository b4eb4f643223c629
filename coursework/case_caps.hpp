// What a whole case uses while it runs, for the grader's per-case caps
// (docs/coursework.md, "The sandbox"): the kernel's limits on address
// space and file size hold for each process alone, so the grader also adds
// up the case's disk and memory itself, and removes any tree a case left.
#pragma once
#include <sys/types.h>

#include <cstdint>
#include <string>

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

// Removes `path` and everything under it, however deep (std::filesystem's
// remove_all gives up on a tree deeper than the open-file limit; then
// coreutils' `rm -rf --one-file-system` does it). False if it is still there.
bool remove_tree(const std::string& path);

// "1 GiB", "4.5 GiB", "512 MiB".
std::string bytes_text(std::uint64_t bytes);

}  // namespace conv::grade
