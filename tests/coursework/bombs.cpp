// grade_bomb: what a kernel that got to make system calls could do to its
// case's process, as a program the tests run in the case runner's place,
// in the same sandbox with the same limits and caps (tests/coursework/
// case_bombs.cpp). A student's kernel is OpenCL C: it runs no host code of
// its own, and inline assembly is refused before anything is built, so
// this is the grader's last line, tested without a way in.
//
//   grade_bomb fork|threads|spin RESULT [wait]
//                                         the bomb; its count and why it
//                                         stopped go to RESULT; then it exits,
//                                         or with `wait` waits to be killed
//   grade_bomb STEP MANIFEST KERNEL LABEL OUT
//                                         as the case runner: the bomb
//                                         named in KERNEL's text, at most
//                                         kRunnerBomb processes or threads
//                                         (past the grader's threads cap, far
//                                         from the process limit that every
//                                         case of uid 65534 on the machine
//                                         shares), then it waits to be killed
#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace {

std::atomic<bool> forever{true};

constexpr long kRunnerBomb = 600;

void* wait_forever(void*) {
  while (forever) pause();
  return nullptr;
}

// Forks until fork fails, or `most` children are made; each child waits.
// "fork: 1151 made, then EAGAIN".
std::string fork_bomb(long most) {
  long made = 0;
  for (;;) {
    if (made >= most) return "fork: " + std::to_string(made) + " made, and no more tried";
    const pid_t child = fork();
    if (child == 0) {
      for (;;) pause();
    }
    if (child < 0) {
      const int error = errno;
      return "fork: " + std::to_string(made) + " made, then " + (error == EAGAIN ? "EAGAIN" : strerror(error));
    }
    ++made;
    if (made > 100000) return "fork: " + std::to_string(made) + " made, never refused";
  }
}

// Starts threads (small stacks) until pthread_create fails, or `most` are
// made; each waits.
std::string thread_bomb(long most) {
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setstacksize(&attr, 64 * 1024);
  long made = 0;
  for (;;) {
    if (made >= most) return "threads: " + std::to_string(made) + " made, and no more tried";
    pthread_t t;
    const int error = pthread_create(&t, &attr, wait_forever, nullptr);
    if (error != 0)
      return "threads: " + std::to_string(made) + " made, then " + (error == EAGAIN ? "EAGAIN" : strerror(error));
    ++made;
    if (made > 100000) return "threads: " + std::to_string(made) + " made, never refused";
  }
}

// Every core busy, for ever.
[[noreturn]] void spin() {
  const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  for (unsigned i = 1; i < cores; ++i)
    std::thread([] {
      volatile unsigned long x = 0;
      for (;;) x = x + 1;
    }).detach();
  volatile unsigned long x = 0;
  for (;;) x = x + 1;
}

std::string bomb(const std::string& mode, long most) {
  if (mode == "fork") return fork_bomb(most);
  if (mode == "threads") return thread_bomb(most);
  if (mode == "spin") spin();
  return "unknown bomb '" + mode + "'";
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 3 || (argc == 4 && std::string(argv[3]) == "wait")) {
    const std::string result = bomb(argv[1], 1000000);
    std::ofstream(argv[2]) << result << "\n";
    if (argc == 3) _exit(0);  // the children and threads go with the sandbox
    for (;;) pause();
  }
  if (argc == 6) {  // the case runner's arguments: the bomb the kernel file names
    std::ifstream in(argv[3]);
    std::ostringstream text;
    text << in.rdbuf();
    std::string mode = "spin";
    for (const char* m : {"fork", "threads"})
      if (text.str().find(m) != std::string::npos) mode = m;
    const std::string result = bomb(mode, kRunnerBomb);
    std::ofstream(std::string(argv[5]) + ".bomb") << result << "\n";
    for (;;) pause();  // the grader's cap or time limit ends it
  }
  const char usage[] = "grade_bomb: usage: grade_bomb fork|threads|spin RESULT [wait]\n";
  if (write(2, usage, sizeof usage - 1) < 0) return 2;
  return 2;
}
