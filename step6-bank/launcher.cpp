// The filter bank's launcher: step 6's launcher with N filters. The
// weights go side by side (weight i of filter k at i * N + k, so bank.cl
// reads weight i of every filter as one floatN), the output holds N floats
// per pixel, and read() splits them into N planes, one under another.
#include "common/machinery/guard.hpp"
#include "step6-bank/bank.hpp"

namespace conv {
namespace embedded {
extern const char* const step6_bank_kernel;  // bank.cl, embedded at build time
}

Launch prepare_bank(DeviceContext& device, const Problem& problem, const std::vector<Filter>& filters,
                    std::pair<int, int> block, int wg_x, int wg_y) {
  const int bank = static_cast<int>(filters.size());
  const auto [bx, by] = block.first > 0 ? block : default_bank_block(bank);
  if (bx % 4 != 0 || bx < 4 || bx > 16 || by < 1 || by > 16)
    throw UsageError("--block: W a multiple of 4 up to 16, H 1 to 16, not " + std::to_string(bx) + "x" +
                     std::to_string(by));
  const Filter& first = problem.filter;
  const std::size_t weight_bytes = sizeof(float) * first.weights.size() * bank;
  if (weight_bytes > device.facts().constant_mem_bytes)
    throw Error("a bank of " + std::to_string(bank) + " filters of " + std::to_string(first.width) + "x" +
                std::to_string(first.width) + " needs " + std::to_string(weight_bytes) +
                " bytes of constant memory, over " + device.facts().name + "'s limit of " +
                std::to_string(device.facts().constant_mem_bytes) + " bytes (CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE)");
  cl::CommandQueue& queue = device.queue();
  const Image& in = problem.padded;
  const int out_width = problem.out_width(), out_height = problem.out_height();
  const int filter_width = first.width;
  const std::size_t group_w = static_cast<std::size_t>(wg_x) * bx;
  const std::size_t group_h = static_cast<std::size_t>(wg_y) * by;
  const std::size_t grid_w = round_up(out_width, group_w);
  const std::size_t grid_h = round_up(out_height, group_h);
  const int in_pitch = static_cast<int>(round_up(grid_w + filter_width + 2, 32));  // floats per row
  const std::size_t in_rows = grid_h + filter_width - 1;

  // 1. Buffers: as step 6's, with N weights per tap and N floats per pixel.
  Launch launch(device);
  const std::size_t in_bytes = sizeof(float) * in_pitch * in_rows;
  const std::size_t row_bytes = sizeof(float) * in.width;
  cl::Buffer input = launch.buffer(CL_MEM_READ_ONLY, in_bytes, "the padded input", in_pitch);
  queue.enqueueFillBuffer(input, 0.0f, 0, in_bytes);
  queue.enqueueWriteBufferRect(input, CL_TRUE, {0, 0, 0}, {0, 0, 0},
                               {row_bytes, static_cast<std::size_t>(in.height), 1},
                               sizeof(float) * in_pitch, 0, row_bytes, 0, in.pixels.data());
  std::vector<float> weights(first.weights.size() * bank);
  for (int k = 0; k < bank; ++k)
    for (std::size_t i = 0; i < first.weights.size(); ++i) weights[i * bank + k] = filters[k].weights[i];
  cl::Buffer filter = launch.buffer(CL_MEM_READ_ONLY, weights.size() * sizeof(float), "the filters");
  cl::copy(queue, weights.cbegin(), weights.cend(), filter);
  const std::size_t out_pitch = grid_w * bank;  // floats per row
  cl::Buffer output =
      launch.output_buffer(CL_MEM_WRITE_ONLY, sizeof(float) * out_pitch * grid_h, "the output", out_pitch);

  // 2. The program: step 6's constants, and BANK.
  const std::string build_options = "-D FILTER_WIDTH=" + std::to_string(filter_width) + " -D BLOCK_X=" +
                                    std::to_string(bx) + " -D BLOCK_Y=" + std::to_string(by) +
                                    " -D BANK=" + std::to_string(bank);
  const std::string label = "step6-bank/bank.cl";
  cl::Program program = device.program(embedded::step6_bank_kernel, build_options, label);
  cl::KernelFunctor<cl::Buffer, cl::Buffer, cl::Buffer, int, int, cl::LocalSpaceArg, int, int> convolve(
      make_kernel(program, "convolve", label));

  // 3. The ranges: one work-item per block, as step 6.
  check_work_group(device, convolve.getKernel(), wg_x, wg_y);
  const cl::NDRange local(wg_x, wg_y);
  const cl::NDRange global(grid_w / bx, grid_h / by);
  const std::string shape = "a bank of " + std::to_string(bank) + " with block " + std::to_string(bx) + "x" +
                            std::to_string(by) + " and work-group " + shape_text(local);
  check_private_memory(device, convolve.getKernel(), static_cast<std::size_t>(wg_x) * wg_y, shape,
                       sizeof(float) * (static_cast<std::size_t>(bx) * by * bank + bx + filter_width + 3));
  const int tile_width = static_cast<int>(round_up(group_w + filter_width - 1, 4));
  const int tile_height = static_cast<int>(group_h) + filter_width - 1;
  const cl::LocalSpaceArg tile = local_tile(device, convolve.getKernel(), tile_width, tile_height,
                                            shape + ", filter " + std::to_string(filter_width));

  // 4. Run; the output's pitch is in pixels (bank.cl stores a floatN per pixel).
  launch.run = [=, &queue]() mutable {
    return convolve(cl::EnqueueArgs(queue, global, local), input, filter, output, in_pitch,
                    static_cast<int>(grid_w), tile, tile_width, tile_height);
  };
  // 5. Read: the image's rows out of the wider output buffer, a pixel's N
  //    floats to N planes, one under another.
  launch.read = [=, &queue] {
    const std::size_t image_row = sizeof(float) * out_width * bank;
    std::vector<float> rows(static_cast<std::size_t>(out_width) * bank * out_height);
    queue.enqueueReadBufferRect(output, CL_TRUE, {0, 0, 0}, {0, 0, 0},
                                {image_row, static_cast<std::size_t>(out_height), 1}, sizeof(float) * out_pitch,
                                0, image_row, 0, rows.data());
    Image result(out_width, out_height * bank);
    for (int k = 0; k < bank; ++k)
      for (int y = 0; y < out_height; ++y)
        for (int x = 0; x < out_width; ++x)
          result.at(x, k * out_height + y) = rows[(static_cast<std::size_t>(y) * out_width + x) * bank + k];
    return result;
  };
  launch.work_group = shape_text(local);
  return launch;
}

}  // namespace conv
