// The inputs the conformance suite and the grader draw their cases from:
// one device per process, chosen by the same CLCONV_* variables as the
// executables, and random images and filters from a seeded generator.
#pragma once
#include <random>

#include "common/machinery/device_choice.hpp"
#include "common/machinery/filter_specs.hpp"
#include "common/machinery/image_files.hpp"

namespace conv {

// The device of this process: CLCONV_PLATFORM / CLCONV_DEVICE /
// CLCONV_DEVICE_TYPE, else the default choice. Opened on first use.
DeviceContext& environment_device();

// Pixels uniform in [0, 1].
Image random_image(int width, int height, std::mt19937& rng);
// A random F x F filter with weights in [-1, 1], named "random:F".
Filter random_filter(int width, std::mt19937& rng);

}  // namespace conv
