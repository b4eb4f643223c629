#include "common/core/errors.hpp"

namespace conv {

std::string one_line(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '\n') out += "\\n";
    else if (c == '\t') out += "\\t";
    else if (c == '\r') out += "\\r";
    else if (u < 0x20 || u == 0x7F) {
      static const char hex[] = "0123456789abcdef";
      out += "\\x";
      out += hex[u >> 4];
      out += hex[u & 15];
    } else {
      out += c;
    }
  }
  return out;
}

std::string cl_error_name(int code) {
  switch (code) {
#define CASE(name, value) \
  case value:             \
    return #name;
    CASE(CL_DEVICE_NOT_FOUND, -1)
    CASE(CL_DEVICE_NOT_AVAILABLE, -2)
    CASE(CL_COMPILER_NOT_AVAILABLE, -3)
    CASE(CL_MEM_OBJECT_ALLOCATION_FAILURE, -4)
    CASE(CL_OUT_OF_RESOURCES, -5)
    CASE(CL_OUT_OF_HOST_MEMORY, -6)
    CASE(CL_PROFILING_INFO_NOT_AVAILABLE, -7)
    CASE(CL_MEM_COPY_OVERLAP, -8)
    CASE(CL_IMAGE_FORMAT_MISMATCH, -9)
    CASE(CL_IMAGE_FORMAT_NOT_SUPPORTED, -10)
    CASE(CL_BUILD_PROGRAM_FAILURE, -11)
    CASE(CL_MAP_FAILURE, -12)
    CASE(CL_MISALIGNED_SUB_BUFFER_OFFSET, -13)
    CASE(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST, -14)
    CASE(CL_COMPILE_PROGRAM_FAILURE, -15)
    CASE(CL_LINKER_NOT_AVAILABLE, -16)
    CASE(CL_LINK_PROGRAM_FAILURE, -17)
    CASE(CL_DEVICE_PARTITION_FAILED, -18)
    CASE(CL_KERNEL_ARG_INFO_NOT_AVAILABLE, -19)
    CASE(CL_INVALID_VALUE, -30)
    CASE(CL_INVALID_DEVICE_TYPE, -31)
    CASE(CL_INVALID_PLATFORM, -32)
    CASE(CL_INVALID_DEVICE, -33)
    CASE(CL_INVALID_CONTEXT, -34)
    CASE(CL_INVALID_QUEUE_PROPERTIES, -35)
    CASE(CL_INVALID_COMMAND_QUEUE, -36)
    CASE(CL_INVALID_HOST_PTR, -37)
    CASE(CL_INVALID_MEM_OBJECT, -38)
    CASE(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR, -39)
    CASE(CL_INVALID_IMAGE_SIZE, -40)
    CASE(CL_INVALID_SAMPLER, -41)
    CASE(CL_INVALID_BINARY, -42)
    CASE(CL_INVALID_BUILD_OPTIONS, -43)
    CASE(CL_INVALID_PROGRAM, -44)
    CASE(CL_INVALID_PROGRAM_EXECUTABLE, -45)
    CASE(CL_INVALID_KERNEL_NAME, -46)
    CASE(CL_INVALID_KERNEL_DEFINITION, -47)
    CASE(CL_INVALID_KERNEL, -48)
    CASE(CL_INVALID_ARG_INDEX, -49)
    CASE(CL_INVALID_ARG_VALUE, -50)
    CASE(CL_INVALID_ARG_SIZE, -51)
    CASE(CL_INVALID_KERNEL_ARGS, -52)
    CASE(CL_INVALID_WORK_DIMENSION, -53)
    CASE(CL_INVALID_WORK_GROUP_SIZE, -54)
    CASE(CL_INVALID_WORK_ITEM_SIZE, -55)
    CASE(CL_INVALID_GLOBAL_OFFSET, -56)
    CASE(CL_INVALID_EVENT_WAIT_LIST, -57)
    CASE(CL_INVALID_EVENT, -58)
    CASE(CL_INVALID_OPERATION, -59)
    CASE(CL_INVALID_GL_OBJECT, -60)
    CASE(CL_INVALID_BUFFER_SIZE, -61)
    CASE(CL_INVALID_MIP_LEVEL, -62)
    CASE(CL_INVALID_GLOBAL_WORK_SIZE, -63)
    CASE(CL_INVALID_PROPERTY, -64)
    CASE(CL_INVALID_IMAGE_DESCRIPTOR, -65)
    CASE(CL_INVALID_COMPILER_OPTIONS, -66)
    CASE(CL_INVALID_LINKER_OPTIONS, -67)
    CASE(CL_INVALID_DEVICE_PARTITION_COUNT, -68)
    CASE(CL_PLATFORM_NOT_FOUND_KHR, -1001)
#undef CASE
    default:
      return "OpenCL error " + std::to_string(code);
  }
}

bool kernel_argument_error(int code) {
  return code == -49 || code == -50 || code == -51 || code == -52;  // INVALID_ARG_INDEX, _VALUE, _SIZE, KERNEL_ARGS
}

std::string kernel_argument_text(const std::string& file, const std::string& setter, const std::string& call,
                                 int code, const std::string& own) {
  return file + ": its kernel does not take the arguments " + setter + " sets (" + call + ": " +
         cl_error_name(code) + "); compare its parameters with " + own;
}

}  // namespace conv
