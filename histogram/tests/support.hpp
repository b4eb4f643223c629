// What the histogram tests share: one device per process (chosen by the same
// CLCONV_* variables as the executables), a fresh random seed per run that
// failures print (CLCONV_TEST_SEED replays one), scratch files, and running
// build/bin/histogram as a subprocess.
#pragma once
#include <cstdint>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "histogram/rgb_image.hpp"
#include "histogram/run.hpp"

namespace conv::histogram::test {

Cl& cl();
const DeviceFacts& facts();
Programs& programs();  // no disk cache: the tests leave the user's cache alone

std::uint32_t run_seed();
std::string seed_note();  // "seed 1234 (rerun with CLCONV_TEST_SEED=1234)"

RgbImage random_image(int width, int height, std::mt19937& rng);

// A fresh folder per process, removed at exit.
std::string scratch_dir();
std::string write_scratch(const std::string& name, const std::string& bytes);
std::string read_file(const std::string& path);

struct Outcome {
  int status = -1;  // exit status, or -1 when killed by a signal
  std::string out, err;
  int err_lines() const;
};
// Runs build/bin/histogram with `args`, and `env` set in its environment only.
Outcome run_histogram(const std::vector<std::string>& args,
                      const std::vector<std::pair<std::string, std::string>>& env = {});

}  // namespace conv::histogram::test
