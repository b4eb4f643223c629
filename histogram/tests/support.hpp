// What the histogram tests share: one device per process (chosen by the same
// CLCONV_* variables as the executables), a fresh random seed per run that
// failures print (CLCONV_TEST_SEED replays one), scratch files, and running
// build/bin/histogram as a subprocess.
#pragma once
#include "tests/files.hpp"
#include "tests/process.hpp"
#include "tests/support.hpp"
#include <cstdint>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "histogram/rgb_image.hpp"
#include "histogram/run.hpp"

namespace conv::histogram::test {

// The other tests' device (tests/support.hpp). Its programs are built
// without the binary cache: the tests leave the user's cache alone.
using conv::test::device;
const DeviceFacts& facts();

// The seed and the scratch folder are the other tests' (tests/support.hpp,
// tests/files.hpp), and so is the subprocess runner (tests/process.hpp).
using conv::test::run_seed;
using conv::test::scratch_dir;
using conv::test::seed_note;
using conv::test::write_scratch;
using conv::test::Env;
using conv::test::Outcome;

RgbImage random_image(int width, int height, std::mt19937& rng);

std::string read_file(const std::string& path);

// Runs build/bin/histogram with `args`, and `env` set in its environment only.
Outcome run_histogram(const std::vector<std::string>& args, const Env& env = {});

}  // namespace conv::histogram::test
