#include "coursework/case_caps.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>
#include <vector>

extern char** environ;

namespace conv::grade {

namespace {

// One open folder per level: the walk of `dir` (an open descriptor, which
// it closes) at `depth`.
void walk(int dir, int depth, DiskUse& use, std::size_t& entries) {
  DIR* d = fdopendir(dir);
  if (!d) {
    close(dir);
    return;
  }
  while (const dirent* e = readdir(d)) {
    if (std::strcmp(e->d_name, ".") == 0 || std::strcmp(e->d_name, "..") == 0) continue;
    if (++entries > kMaxEntries) {
      use.too_many = true;
      break;
    }
    struct stat st {};
    if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0) continue;  // gone meanwhile
    use.bytes += static_cast<std::uint64_t>(st.st_blocks) * 512;
    if (!S_ISDIR(st.st_mode)) continue;
    if (depth + 1 > kMaxDepth) {
      use.too_deep = true;
      continue;
    }
    const int sub = openat(dirfd(d), e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (sub >= 0) walk(sub, depth + 1, use, entries);
    if (use.too_many) break;
  }
  closedir(d);
}

}  // namespace

DiskUse disk_use(const std::string& folder) {
  // One walk at a time: each holds up to kMaxDepth descriptors, and cases
  // run side by side under --jobs.
  static std::mutex one_walk;
  std::lock_guard<std::mutex> lock(one_walk);
  DiskUse use;
  std::size_t entries = 0;
  const int top = open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (top >= 0) walk(top, 0, use, entries);
  return use;
}

TreeUse tree_use(pid_t pid) {
  struct Proc {
    pid_t parent = 0;
    int threads = 0;
    std::uint64_t resident_pages = 0;
  };
  std::map<pid_t, Proc> procs;
  std::multimap<pid_t, pid_t> children;
  if (DIR* d = opendir("/proc")) {
    while (const dirent* e = readdir(d)) {
      char* end = nullptr;
      const long id = std::strtol(e->d_name, &end, 10);
      if (id <= 0 || *end) continue;
      std::ifstream in(std::string("/proc/") + e->d_name + "/stat");
      std::string text;
      if (!std::getline(in, text)) continue;  // ended meanwhile
      // After the name in parentheses (which may hold anything): state,
      // ppid (4th field), ... num_threads (20th), ... rss in pages (24th).
      const auto close_paren = text.rfind(')');
      if (close_paren == std::string::npos) continue;
      std::istringstream fields(text.substr(close_paren + 1));
      std::vector<std::string> f;
      for (std::string w; fields >> w && f.size() < 22;) f.push_back(w);
      if (f.size() < 22) continue;
      Proc p;
      p.parent = static_cast<pid_t>(std::strtol(f[1].c_str(), nullptr, 10));
      p.threads = static_cast<int>(std::strtol(f[17].c_str(), nullptr, 10));
      p.resident_pages = std::strtoull(f[21].c_str(), nullptr, 10);
      procs[static_cast<pid_t>(id)] = p;
      children.insert({p.parent, static_cast<pid_t>(id)});
    }
    closedir(d);
  }
  TreeUse use;
  const std::uint64_t page = static_cast<std::uint64_t>(sysconf(_SC_PAGESIZE));
  std::vector<pid_t> todo = {pid};
  while (!todo.empty() && use.processes < 100000) {
    const pid_t at = todo.back();
    todo.pop_back();
    const auto p = procs.find(at);
    if (p == procs.end()) continue;
    ++use.processes;
    use.threads += p->second.threads;
    use.resident_bytes += p->second.resident_pages * page;
    const auto range = children.equal_range(at);
    for (auto c = range.first; c != range.second; ++c) todo.push_back(c->second);
  }
  return use;
}

int user_tasks(uid_t uid) {
  int tasks = 0;
  DIR* d = opendir("/proc");
  if (!d) return 0;
  while (const dirent* e = readdir(d)) {
    char* end = nullptr;
    const long id = std::strtol(e->d_name, &end, 10);
    if (id <= 0 || *end) continue;
    std::ifstream in(std::string("/proc/") + e->d_name + "/status");
    long real_uid = -1, threads = 0;
    for (std::string line; std::getline(in, line);) {
      if (line.rfind("Uid:", 0) == 0) real_uid = std::strtol(line.c_str() + 4, nullptr, 10);
      else if (line.rfind("Threads:", 0) == 0) threads = std::strtol(line.c_str() + 8, nullptr, 10);
    }
    if (real_uid == static_cast<long>(uid)) tasks += static_cast<int>(std::max(1L, threads));
  }
  closedir(d);
  return tasks;
}

std::function<std::string(ProcessId)> cap_check(const CaseCaps& caps) {
  return [caps](ProcessId pid) -> std::string {
    if (caps.tree_memory_bytes || caps.tree_threads) {
      const TreeUse t = tree_use(static_cast<pid_t>(pid));
      if (caps.tree_memory_bytes && t.resident_bytes > caps.tree_memory_bytes)
        return "used more than " + bytes_text(caps.tree_memory_bytes) + " of memory (its processes together)";
      if (caps.tree_threads && t.threads > caps.tree_threads)
        return "ran more than " + std::to_string(caps.tree_threads) + " threads and processes at once";
    }
    if (caps.disk_bytes && !caps.disk_folder.empty()) {
      const DiskUse d = disk_use(caps.disk_folder);
      if (d.bytes > caps.disk_bytes) return "used more than " + bytes_text(caps.disk_bytes) + " of disk";
      if (d.too_deep) return "made folders more than " + std::to_string(kMaxDepth) + " levels deep";
      if (d.too_many) return "made more than " + std::to_string(kMaxEntries) + " files and folders";
    }
    return "";
  };
}

bool remove_tree(const std::string& path) {
  std::error_code ec;
  std::filesystem::remove_all(path, ec);
  struct stat st {};
  if (lstat(path.c_str(), &st) != 0) return true;
  // posix_spawn: safe in a process with threads (PoCL's).
  std::vector<std::string> args = {"rm", "-rf", "--one-file-system", "--", path};
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t child = 0;
  if (posix_spawnp(&child, "rm", nullptr, nullptr, argv.data(), environ) == 0) {
    int status = 0;
    while (waitpid(child, &status, 0) < 0 && errno == EINTR) {
    }
  }
  return lstat(path.c_str(), &st) != 0;
}

std::string bytes_text(std::uint64_t bytes) {
  const double gib = static_cast<double>(bytes) / (1u << 30);
  char buf[32];
  if (gib >= 1) std::snprintf(buf, sizeof buf, gib == static_cast<double>(static_cast<std::uint64_t>(gib)) ? "%.0f GiB" : "%.1f GiB", gib);
  else std::snprintf(buf, sizeof buf, "%.0f MiB", static_cast<double>(bytes) / (1u << 20));
  return buf;
}

}  // namespace conv::grade
