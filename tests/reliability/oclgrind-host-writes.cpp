// Preloaded by oclgrind-run.sh in front of Oclgrind's runtime, so that
// --uninitialized judges kernels and not the host's way of filling buffers.
//
// Oclgrind 21.10 (Debian 12) keeps track of initialized buffer bytes for
// only one host write per buffer, and only one at offset 0 is recorded
// right: a later write forgets what earlier ones initialized, one at an
// offset marks the wrong bytes, and clEnqueueFillBuffer marks none. A buffer
// that the host zero-fills and then uploads row by row into (a pitched
// image) therefore looks uninitialized, and every kernel that copies from it
// gets "Uninitialized value written to ..." reports for bytes that hold
// exactly what the host put there.
//
// This library turns every partial host write (a fill, a rectangular write,
// a write that does not cover the whole buffer) into one whole-buffer
// clEnqueueWriteBuffer at offset 0: it reads the buffer, applies the write
// on the host, and writes it all back. The device ends up with the same
// bytes. The cost: once the host has written any part of a buffer, Oclgrind
// counts all of it as initialized. Buffers the host never writes (outputs,
// scratch) and all __local and private memory are tracked as before.
#include <dlfcn.h>

#include <cstring>
#include <vector>

#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>

namespace {

using WriteBuffer = cl_int (*)(cl_command_queue, cl_mem, cl_bool, size_t, size_t, const void*,
                               cl_uint, const cl_event*, cl_event*);
using ReadBuffer = cl_int (*)(cl_command_queue, cl_mem, cl_bool, size_t, size_t, void*, cl_uint,
                              const cl_event*, cl_event*);
using MemInfo = cl_int (*)(cl_mem, cl_mem_info, size_t, void*, size_t*);

// The next definitions after this library: Oclgrind's runtime under the
// oclgrind wrapper (the ICD loader when run without it).
template <typename F>
F next(const char* name) {
  return reinterpret_cast<F>(dlsym(RTLD_NEXT, name));
}
WriteBuffer write_buffer() {
  static const auto fn = next<WriteBuffer>("clEnqueueWriteBuffer");
  return fn;
}
MemInfo mem_info() {
  static const auto fn = next<MemInfo>("clGetMemObjectInfo");
  return fn;
}

// Reads the whole buffer, lets `apply` change the bytes, writes it all back
// with one blocking write at offset 0 (which waits for `wait_list` and gives
// `event`). The read waits for everything queued before, as an in-order
// queue would have.
template <typename Apply>
cl_int rewrite_whole(cl_command_queue queue, cl_mem buffer, cl_uint waits,
                     const cl_event* wait_list, cl_event* event, Apply apply) {
  static const auto read = next<ReadBuffer>("clEnqueueReadBuffer");
  if (!read || !mem_info() || !write_buffer()) return CL_OUT_OF_HOST_MEMORY;
  size_t size = 0;
  if (cl_int status = mem_info()(buffer, CL_MEM_SIZE, sizeof size, &size, nullptr); status != CL_SUCCESS)
    return status;
  std::vector<unsigned char> bytes(size);
  if (cl_int status = read(queue, buffer, CL_TRUE, 0, size, bytes.data(), waits, wait_list, nullptr);
      status != CL_SUCCESS)
    return status;
  if (cl_int status = apply(bytes); status != CL_SUCCESS) return status;
  return write_buffer()(queue, buffer, CL_TRUE, 0, size, bytes.data(), 0, nullptr, event);
}

}  // namespace

extern "C" {

CL_API_ENTRY cl_int CL_API_CALL clEnqueueWriteBuffer(cl_command_queue queue, cl_mem buffer,
                                                     cl_bool blocking, size_t offset, size_t size,
                                                     const void* ptr, cl_uint waits,
                                                     const cl_event* wait_list, cl_event* event) {
  if (!write_buffer() || !mem_info()) return CL_OUT_OF_HOST_MEMORY;
  size_t whole = 0;
  if (cl_int status = mem_info()(buffer, CL_MEM_SIZE, sizeof whole, &whole, nullptr);
      status != CL_SUCCESS)
    return status;
  if (offset == 0 && size == whole)  // the one case Oclgrind records right
    return write_buffer()(queue, buffer, blocking, offset, size, ptr, waits, wait_list, event);
  if (!ptr || offset + size > whole) return CL_INVALID_VALUE;
  return rewrite_whole(queue, buffer, waits, wait_list, event, [&](std::vector<unsigned char>& b) {
    std::memcpy(b.data() + offset, ptr, size);
    return CL_SUCCESS;
  });
}

CL_API_ENTRY cl_int CL_API_CALL clEnqueueFillBuffer(cl_command_queue queue, cl_mem buffer,
                                                    const void* pattern, size_t pattern_size,
                                                    size_t offset, size_t size, cl_uint waits,
                                                    const cl_event* wait_list, cl_event* event) {
  if (!pattern || pattern_size == 0 || size % pattern_size != 0 || offset % pattern_size != 0)
    return CL_INVALID_VALUE;
  return rewrite_whole(queue, buffer, waits, wait_list, event, [&](std::vector<unsigned char>& b) {
    if (offset + size > b.size()) return CL_INVALID_VALUE;
    for (size_t at = offset; at < offset + size; at += pattern_size)
      std::memcpy(b.data() + at, pattern, pattern_size);
    return CL_SUCCESS;
  });
}

CL_API_ENTRY cl_int CL_API_CALL clEnqueueWriteBufferRect(
    cl_command_queue queue, cl_mem buffer, cl_bool /*blocking: always*/, const size_t* buffer_origin,
    const size_t* host_origin, const size_t* region, size_t buffer_row_pitch,
    size_t buffer_slice_pitch, size_t host_row_pitch, size_t host_slice_pitch, const void* ptr,
    cl_uint waits, const cl_event* wait_list, cl_event* event) {
  if (!buffer_origin || !host_origin || !region || !ptr || !region[0] || !region[1] || !region[2])
    return CL_INVALID_VALUE;
  if (buffer_row_pitch == 0) buffer_row_pitch = region[0];
  if (buffer_slice_pitch == 0) buffer_slice_pitch = region[1] * buffer_row_pitch;
  if (host_row_pitch == 0) host_row_pitch = region[0];
  if (host_slice_pitch == 0) host_slice_pitch = region[1] * host_row_pitch;
  const auto* host = static_cast<const unsigned char*>(ptr);
  return rewrite_whole(queue, buffer, waits, wait_list, event, [&](std::vector<unsigned char>& b) {
    for (size_t z = 0; z < region[2]; ++z)
      for (size_t y = 0; y < region[1]; ++y) {
        const size_t to = (buffer_origin[2] + z) * buffer_slice_pitch +
                          (buffer_origin[1] + y) * buffer_row_pitch + buffer_origin[0];
        const size_t from = (host_origin[2] + z) * host_slice_pitch +
                            (host_origin[1] + y) * host_row_pitch + host_origin[0];
        if (to + region[0] > b.size()) return CL_INVALID_VALUE;
        std::memcpy(b.data() + to, host + from, region[0]);
      }
    return CL_SUCCESS;
  });
}

}  // extern "C"
