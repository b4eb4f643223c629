#include "common/launch.hpp"

#include "common/device_checks.hpp"
#include "common/errors.hpp"

namespace conv {

Problem make_problem(const Image& image, const Filter& filter, Border border) {
  return Problem{pad_image(image, filter.width, border), filter, border};
}

cl::Buffer Launch::buffer(cl_mem_flags flags, std::size_t bytes, const std::string& what,
                          std::size_t pitch) {
  check_buffer_size(*device_, bytes, what);
  // Each buffer's margins hold their own NaN (kGuardBits + n), so a margin
  // that received another buffer's margin values is still found.
  guarded_.emplace_back(*device_, flags, bytes, what, pitch,
                        kGuardBits + static_cast<std::uint32_t>(guarded_.size()));
  return guarded_.back().buffer;
}

cl::Buffer Launch::output_buffer(cl_mem_flags flags, std::size_t bytes, const std::string& what,
                                 std::size_t pitch) {
  cl::Buffer made = buffer(flags, bytes, what, pitch);
  outputs_.push_back(guarded_.size() - 1);
  return made;
}

void Launch::poison_outputs() {
  auto& queue = device_->queue();
  for (std::size_t i : outputs_) {
    const cl::Buffer& b = guarded_[i].buffer;
    queue.enqueueFillBuffer(b, poison_value(), 0, b.getInfo<CL_MEM_SIZE>());
  }
  queue.finish();
}

void Launch::check_guards() {
  for (const auto& g : guarded_) g.check(device_->queue());
}

cl::Kernel make_kernel(const cl::Program& program, const std::string& name,
                       const std::string& label) {
  try {
    return cl::Kernel(program, name.c_str());
  } catch (const cl::Error& e) {
    throw Error(label + ": no kernel named '" + name + "' (" + cl_error_name(e.err()) + ")");
  }
}

std::string shape_text(const cl::NDRange& range) {
  std::string text = std::to_string(range[0]);
  for (cl::size_type d = 1; d < range.dimensions(); ++d) text += "x" + std::to_string(range[d]);
  return text;
}

}  // namespace conv
