// The one place that includes the OpenCL C++ bindings, so every file agrees on
// the API version (1.2: what both PoCL and NVIDIA's driver implement) and on
// exceptions (every failed call throws cl::Error, caught once in main).
#pragma once
#ifndef CL_HPP_TARGET_OPENCL_VERSION
#define CL_HPP_TARGET_OPENCL_VERSION 120
#endif
#ifndef CL_HPP_MINIMUM_OPENCL_VERSION
#define CL_HPP_MINIMUM_OPENCL_VERSION 120
#endif
#define CL_HPP_ENABLE_EXCEPTIONS
#include <CL/opencl.hpp>
