// build/bin/grade-case: the grader's case runner (docs/coursework.md). The
// grader starts it in the sandbox, once per case of a submission:
//
//   grade-case STEP MANIFEST KERNEL_FILE LABEL OUT_FOLDER
//   grade-case --time REPS STEP MANIFEST KERNEL_FILE LABEL OUT_FOLDER
//
// It builds KERNEL_FILE with the step's own launcher for every run the
// manifest lists and writes each output image (or why there is none) into
// OUT_FOLDER. With --time it runs the manifest's first run REPS more times
// and writes each launch's kernel time beside the image (grade --speed). It
// decides nothing: the grader checks the images against its own reference,
// and takes the times' median itself. `grade-case --probe` prints "sandbox ok, device: NAME": the
// grader's test that the sandbox starts and shows the cases its device.
#include <cstdlib>
#include <iostream>

#include "common/machinery/cli.hpp"
#include "common/machinery/device_choice.hpp"
#include "common/machinery/guard.hpp"
#include "common/machinery/program_cache.hpp"
#include "common/machinery/reference.hpp"
#include "common/machinery/random_inputs.hpp"
#include "common/machinery/report.hpp"
#include "common/machinery/settings.hpp"
#include "coursework/cases.hpp"

int main(int argc, char** argv) {
  if (argc == 2 && std::string(argv[1]) == "--probe") {
    // The device the cases will use, as the variables choose it.
    return conv::guarded_main("grade-case --probe", [] {
      std::cout << "sandbox ok, device: " << conv::environment_device().facts().name << std::endl;
      return 0;
    });
  }
  if (argc == 8 && std::string(argv[1]) == "--time") {
    return conv::guarded_main("grade-case", [&] {
      const int reps = std::atoi(argv[2]);
      if (reps < 1 || reps > 1000) throw conv::UsageError("--time: REPS from 1 to 1000");
      conv::grade::time_manifest(argv[3], argv[4], argv[5], argv[6], argv[7], reps);
      return 0;
    });
  }
  if (argc != 6) {
    std::cerr << "grade-case: usage: grade-case [--time REPS] STEP MANIFEST KERNEL_FILE LABEL OUT_FOLDER (run by "
                 "build/bin/grade)\n";
    return 2;
  }
  return conv::guarded_main("grade-case", [&] {
    conv::grade::run_manifest(argv[1], argv[2], argv[3], argv[4], argv[5]);
    return 0;
  });
}
