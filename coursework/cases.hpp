// The grader's cases: the conformance suite's seven kinds of case for a
// step (same titles, same sizes, filters, borders, work-groups and
// configurations as tests/conformance.cpp), drawn by the grader from its
// seed. The grader writes each case's inputs, the case runner (in the
// sandbox) writes the step's output for each, and the grader checks those
// outputs against the serial reference it computes itself: nothing the
// student's code prints or returns can make a case pass.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "common/machinery/device_choice.hpp"
#include "common/machinery/guard.hpp"
#include "common/machinery/program_cache.hpp"
#include "common/machinery/reference.hpp"
#include "common/machinery/report.hpp"
#include "common/machinery/settings.hpp"

namespace conv::grade {

// One launch of a case: an image, a filter, a border, a work-group and one
// of the step's configurations (suite_configurations with a kernel file).
struct Run {
  int config = 0;
  Image image;
  Filter filter;
  Border border = Border::zero;
  int wg_x = 16, wg_y = 16;
  // How the output is checked: against the reference within the step's
  // bound, or, for a step whose sums are exact, bit for bit for an impulse
  // and within the float bound of c * sum(weights) for a constant image.
  enum class Check { reference, impulse, constant } check = Check::reference;
  int impulse_x = 0, impulse_y = 0;
  float constant = 0;
  // The serial reference, computed once beforehand for a run whose output
  // is checked many times (the speed case: every timed run of every
  // kernel); null: check_output computes it.
  std::shared_ptr<const Reference> reference;
};

struct Case {
  std::string title;  // "600x400 x every filter width", the suite's
  std::vector<Run> runs;
};

// The step's cases, in the suite's order, their data drawn from `seed`.
std::vector<Case> make_cases(const Step& step, std::uint32_t seed);

// The case's inputs in `folder`: a manifest (one line per run: the
// configuration, the work-group, the border, the image and filter files)
// and the files, as PFM.
void write_case_inputs(const Case& c, const std::string& folder);

// The runner's files for run k of a case, in its output folder: the output
// image, or a note why there is none (a build log, a kernel fault).
std::string output_file(const std::string& folder, std::size_t k);
std::string build_note_file(const std::string& folder, std::size_t k);
std::string fault_note_file(const std::string& folder, std::size_t k);

// "17x33, filter random:5, border zero, wg 8x8, variant float4"
std::string run_label(const Step& step, const Run& run);

// Checks run `run`'s `output` (already read); "" when it passes, else what
// is wrong: the worst pixel and its error, or the first pixel never written.
std::string check_output(const Step& step, const Run& run, const Image& output);

// The speed case's runner side: the first run of `manifest` (work-group
// 0x0: the step's own default), launched once, checked and written as
// run_manifest does, then `reps` more times, each into outputs poisoned
// again and each required to write the same result (a fault note names a
// launch that did not); the kernel's time of each of those launches, from
// OpenCL's profiling events, one a line in milliseconds, goes to
// times_file(out_folder).
void time_manifest(const std::string& step_name, const std::string& manifest, const std::string& kernel_file,
                   const std::string& label, const std::string& out_folder, int reps);
std::string times_file(const std::string& folder);

// The case runner's side: runs every line of `manifest` with the kernel in
// `kernel_file` (its name `label` in build errors), writing each output (or
// note) into `out_folder`; stops at the first run that has no output.
void run_manifest(const std::string& step_name, const std::string& manifest,
                  const std::string& kernel_file, const std::string& label,
                  const std::string& out_folder);

}  // namespace conv::grade
