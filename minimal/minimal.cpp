// One whole OpenCL host program, top to bottom, with no harness: pick a
// device, build step 1's kernel, make buffers, set the arguments, enqueue,
// read back, check against a serial loop and print the kernel's time.
// docs/step1-naive.md starts here, then explains what common/ adds.
//
//   build/bin/minimal [--size WxH] [--filter-width F] [--platform NAME] [--kernel FILE]
#define CL_HPP_ENABLE_EXCEPTIONS
#define CL_HPP_TARGET_OPENCL_VERSION 120
#define CL_HPP_MINIMUM_OPENCL_VERSION 120
#include <CL/opencl.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#ifndef MINIMAL_KERNEL_FILE
#define MINIMAL_KERNEL_FILE "step1-naive/convolve.cl"
#endif

// One line on stderr; exit status 1 (2 for a command-line mistake).
static int fail(const std::string& message, int status = 1) {
  std::fprintf(stderr, "minimal: %s\n", message.c_str());
  return status;
}

int main(int argc, char** argv) try {
  // 0. The problem: a W x H image, an F x F filter, from the command line.
  int width = 1024, height = 1024, f = 7;
  std::string platform_name, kernel_file = MINIMAL_KERNEL_FILE;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const bool has_value = i + 1 < argc;
    const bool option = arg == "--size" || arg == "--filter-width" || arg == "--platform" || arg == "--kernel";
    char end = 0;
    if (arg == "--help") {
      std::printf("usage: minimal [--size WxH] [--filter-width F] [--platform NAME] [--kernel FILE]\n");
      return 0;
    } else if (!option) {
      return fail("'" + arg + "': no such option (--help lists them)", 2);
    } else if (!has_value) {
      return fail(arg + ": needs a value", 2);
    } else if (arg == "--size" && std::sscanf(argv[++i], "%dx%d%c", &width, &height, &end) != 2) {
      return fail("--size: expected WxH, as 640x480, not '" + std::string(argv[i]) + "'", 2);
    } else if (arg == "--filter-width" && std::sscanf(argv[++i], "%d%c", &f, &end) != 1) {
      return fail("--filter-width: expected a number, not '" + std::string(argv[i]) + "'", 2);
    } else if (arg == "--platform") {
      platform_name = argv[++i];
    } else if (arg == "--kernel") {
      kernel_file = argv[++i];
    }
  }
  if (width < 1 || height < 1 || width > 16384 || height > 16384 || f < 1 || f > 63)
    return fail("--size must be 1x1 to 16384x16384 and --filter-width 1 to 63", 2);

  // 1. A device: the first GPU of the first platform whose name contains
  //    --platform (any platform when not given), else its first device.
  std::vector<cl::Platform> platforms;
  cl::Platform::get(&platforms);
  cl::Device device;
  bool found = false;
  for (int want_gpu = 1; want_gpu >= 0 && !found; --want_gpu)
    for (auto& p : platforms) {
      if (p.getInfo<CL_PLATFORM_NAME>().find(platform_name) == std::string::npos) continue;
      std::vector<cl::Device> devices;
      try {
        p.getDevices(want_gpu ? CL_DEVICE_TYPE_GPU : CL_DEVICE_TYPE_ALL, &devices);
      } catch (const cl::Error&) {
        continue;  // CL_DEVICE_NOT_FOUND: this platform has none of that type
      }
      if (devices.empty()) continue;
      device = devices[0];
      found = true;
      break;
    }
  if (!found) return fail("no OpenCL device" + (platform_name.empty() ? "" : " on a platform named '" + platform_name + "'"));
  cl::Context context(device);
  cl::CommandQueue queue(context, device, CL_QUEUE_PROFILING_ENABLE);
  std::printf("device: %s\n", device.getInfo<CL_DEVICE_NAME>().c_str());

  // 2. The program: the kernel's source text, compiled for this device now.
  std::ifstream file(kernel_file);
  if (!file) return fail(kernel_file + ": cannot open the kernel file");
  std::stringstream text;
  text << file.rdbuf();
  cl::Program program(context, text.str());
  try {
    program.build({device});
  } catch (const cl::BuildError&) {
    return fail(kernel_file + ": build failed:\n" + program.getBuildInfo<CL_PROGRAM_BUILD_LOG>(device));
  }
  cl::Kernel kernel(program, "convolve");

  // 3. The data on the host: the image padded by F - 1 zeros (step 1's
  //    kernel reads the F x F window whose top-left corner is (x, y)), and
  //    the filter; random, from a fixed seed.
  const int pitch = width + f - 1, padded_height = height + f - 1;
  std::vector<float> input(static_cast<size_t>(pitch) * padded_height, 0.0f), weights(f * f);
  std::vector<float> output(static_cast<size_t>(width) * height, NAN);
  std::mt19937 rng(1);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x) input[(y + f / 2) * pitch + x + f / 2] = uniform(rng);
  for (float& w : weights) w = uniform(rng);

  // 4. Buffers on the device, filled from the host copies.
  cl::Buffer d_input(context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, input.size() * sizeof(float), input.data());
  cl::Buffer d_filter(context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, weights.size() * sizeof(float),
                      weights.data());
  cl::Buffer d_output(context, CL_MEM_WRITE_ONLY, output.size() * sizeof(float));

  // 5. The arguments, in the order of the kernel's parameters.
  kernel.setArg(0, d_input);
  kernel.setArg(1, d_filter);
  kernel.setArg(2, d_output);
  kernel.setArg(3, pitch);
  kernel.setArg(4, width);
  kernel.setArg(5, height);
  kernel.setArg(6, f);

  // 6. Enqueue: one work-item per output pixel, in 16x16 work-groups (or
  //    smaller, where the device allows less); the global range rounded up
  //    to whole work-groups, the kernel skipping work-items past the image.
  size_t group = 16;
  while (group * group > device.getInfo<CL_DEVICE_MAX_WORK_GROUP_SIZE>()) group /= 2;
  const cl::NDRange local(group, group);
  const cl::NDRange global((width + group - 1) / group * group, (height + group - 1) / group * group);
  cl::Event event;
  queue.enqueueNDRangeKernel(kernel, cl::NullRange, global, local, nullptr, &event);

  // 7. Read back (a blocking read: it waits for the kernel), and the time
  //    the kernel took on the device, from the event's profiling stamps.
  queue.enqueueReadBuffer(d_output, CL_TRUE, 0, output.size() * sizeof(float), output.data());
  const double ms = (event.getProfilingInfo<CL_PROFILING_COMMAND_END>() -
                     event.getProfilingInfo<CL_PROFILING_COMMAND_START>()) * 1e-6;

  // 8. The check: the same sum, serially, in double. A float sum of F * F
  //    products may differ from the exact one by about F * F * epsilon
  //    times the sum of the products' magnitudes, in any order.
  long long wrong = 0;
  double worst = 0;
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x) {
      double sum = 0, magnitude = 0;
      for (int r = 0; r < f; ++r)
        for (int c = 0; c < f; ++c) {
          const double term = static_cast<double>(weights[r * f + c]) * input[(y + r) * pitch + x + c];
          sum += term;
          magnitude += std::fabs(term);
        }
      const double error = std::fabs(output[static_cast<size_t>(y) * width + x] - sum);
      worst = std::max(worst, error);
      if (!(error <= f * f * 1.2e-7 * magnitude + 1e-30)) {  // NaN (unwritten) fails too
        if (wrong++ == 0) std::fprintf(stderr, "minimal: first wrong output at (%d, %d): %g, expected %g\n", x, y,
                                       output[static_cast<size_t>(y) * width + x], sum);
      }
    }
  std::printf("%dx%d image, %dx%d filter, %zux%zu work-groups: kernel %.3f ms\n", width, height, f, f, group, group,
              ms);
  if (wrong > 0) {
    std::printf("check: FAILED, %lld of %d outputs wrong (max abs error %g)\n", wrong, width * height, worst);
    return 1;
  }
  std::printf("check: OK, every output within its error bound (max abs error %g)\n", worst);
  return 0;
} catch (const cl::Error& e) {
  return fail(std::string(e.what()) + " failed with OpenCL error " + std::to_string(e.err()));
}
