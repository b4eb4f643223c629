// build/bin/grade-case: the grader's case runner (docs/coursework.md). The
// grader starts it in the sandbox, once per case of a submission:
//
//   grade-case STEP MANIFEST KERNEL_FILE LABEL OUT_FOLDER
//
// It builds KERNEL_FILE with the step's own launcher for every run the
// manifest lists and writes each output image (or why there is none) into
// OUT_FOLDER. It decides nothing: the grader checks the images against its
// own reference. `grade-case --probe` prints "sandbox ok": the grader's
// test that the sandbox starts.
#include <iostream>

#include "common/machinery/cli.hpp"
#include "common/machinery/device_choice.hpp"
#include "common/machinery/guard.hpp"
#include "common/machinery/program_cache.hpp"
#include "common/machinery/reference.hpp"
#include "common/machinery/report.hpp"
#include "common/machinery/settings.hpp"
#include "coursework/cases.hpp"

int main(int argc, char** argv) {
  if (argc == 2 && std::string(argv[1]) == "--probe") {
    std::cout << "sandbox ok" << std::endl;
    return 0;
  }
  if (argc != 6) {
    std::cerr << "grade-case: usage: grade-case STEP MANIFEST KERNEL_FILE LABEL OUT_FOLDER (run by build/bin/grade)\n";
    return 2;
  }
  return conv::guarded_main("grade-case", [&] {
    conv::grade::run_manifest(argv[1], argv[2], argv[3], argv[4], argv[5]);
    return 0;
  });
}
