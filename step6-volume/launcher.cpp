// The 3D volume's launcher: the whole OpenCL host side of volume.cl. The
// volume is uploaded into a pitched buffer (rows of in_pitch voxels, slices
// of in_slice), the filters side by side (one floatBANK per weight), and
// the kernel writes one floatBANK per output voxel. It runs through
// run_launch, the loop every step's launch goes through.
#include <cstdint>

#include "common/machinery/guard.hpp"
#include "step6-volume/volume.hpp"

namespace conv {
namespace embedded {
extern const char* const step6_volume_kernel;  // volume.cl, embedded at build time
}

namespace {

const std::string kLabel = "step6-volume/volume.cl";

// Weight i of every filter side by side: the layout of a floatBANK array.
std::vector<float> interleave(const std::vector<Filter3D>& filters) {
  const std::size_t bank = filters.size(), n = filters.front().weights.size();
  std::vector<float> out(n * bank);
  for (std::size_t b = 0; b < bank; ++b)
    for (std::size_t i = 0; i < n; ++i) out[i * bank + b] = filters[b].weights[i];
  return out;
}

void check_constant_bytes(DeviceContext& device, std::size_t bytes, const std::string& what) {
  const std::size_t limit = device.facts().constant_mem_bytes;
  if (bytes > limit)
    throw Error(what + " needs " + std::to_string(bytes) + " bytes of constant memory, over " +
                device.facts().name + "'s limit of " + std::to_string(limit) +
                " bytes (CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE)");
}

}  // namespace

VolumeLaunch prepare_volume(DeviceContext& device, const Volume& volume,
                            const std::vector<Filter3D>& filters, const std::string& variant,
                            int block_x, int wg_x, int wg_y, int wg_z) {
  const int bank = static_cast<int>(filters.size());
  check_volume_bank(bank);
  const bool blocked = variant == "blocked";
  if (!blocked && variant != "naive")
    throw UsageError("--variant: naive or blocked, not '" + variant + "'");
  if (block_x < 1 || block_x > 32) throw UsageError("--block-x: 1..32, not " + std::to_string(block_x));
  const int F = filters.front().width;
  for (const auto& f : filters)
    if (f.width != F) throw UsageError("every filter of a bank must have the same width");
  const VolumeLayout l = check_volume_fits(device, volume.width, volume.height, volume.depth, F, bank,
                                           blocked ? block_x : 1, wg_x, wg_y, wg_z);
  const std::size_t weight_bytes = sizeof(float) * filters.front().weights.size() * bank;
  check_constant_bytes(device, weight_bytes, "a bank of " + std::to_string(bank) + " 3D filters of width " +
                                                 std::to_string(F));
  cl::CommandQueue& queue = device.queue();
  const int in_pitch = static_cast<int>(l.in_pitch), in_slice = static_cast<int>(l.in_slice);
  const int out_pitch = static_cast<int>(l.out_pitch), out_slice = static_cast<int>(l.out_slice);
  const int out_width = l.out_width, out_height = l.out_height, out_depth = l.out_depth;

  // 1. Buffers. The volume goes in pitched: zeros (the blocked kernel reads
  //    whole blocks past the last column), then the voxels written row by
  //    row with enqueueWriteBufferRect. Its size is rounded up to whole
  //    floats for the harness's guard margins. The filters go in as one
  //    floatBANK per weight; the output holds BANK floats per voxel.
  VolumeLaunch prepared{Launch(device), l, bank};
  Launch& launch = prepared.launch;
  const std::size_t input_bytes = round_up(l.in_bytes, sizeof(float));
  cl::Buffer input = launch.buffer(CL_MEM_READ_ONLY, input_bytes, "the volume");
  queue.enqueueFillBuffer(input, std::uint8_t{0}, 0, input_bytes);
  queue.enqueueWriteBufferRect(input, CL_TRUE, {0, 0, 0}, {0, 0, 0},
                               {static_cast<std::size_t>(volume.width),
                                static_cast<std::size_t>(volume.height),
                                static_cast<std::size_t>(volume.depth)},
                               l.in_pitch, l.in_slice, static_cast<std::size_t>(volume.width),
                               static_cast<std::size_t>(volume.width) * volume.height,
                               volume.voxels.data());
  const std::vector<float> packed = interleave(filters);
  cl::Buffer filter = launch.buffer(CL_MEM_READ_ONLY, weight_bytes, "the filters");
  cl::copy(queue, packed.cbegin(), packed.cend(), filter);
  cl::Buffer output = launch.output_buffer(CL_MEM_WRITE_ONLY, l.out_bytes, "the output volumes");

  // 2. The program: F, BANK and BLOCK_X are compile-time constants, so the
  //    loops over them unroll and the sums stay in registers. Both kernels
  //    take the same arguments.
  const std::string build_options = "-D FILTER_WIDTH=" + std::to_string(F) + " -D BANK=" +
                                    std::to_string(bank) + " -D BLOCK_X=" + std::to_string(block_x);
  cl::Program program = device.program(embedded::step6_volume_kernel, build_options, kLabel);
  cl::KernelFunctor<cl::Buffer, cl::Buffer, cl::Buffer, int, int, int, int, int, int, int> correlate(
      make_kernel(program, blocked ? "volume_blocked" : "volume_naive", kLabel));

  // 3. The ranges, in 3D: one work-item per output voxel (naive) or per
  //    block of block_x voxels along a row (blocked), rounded up to whole
  //    work-groups; the kernel skips the work-items past the volume.
  check_work_group(device, correlate.getKernel(), wg_x, wg_y, wg_z);
  const cl::NDRange local(wg_x, wg_y, wg_z);
  const cl::NDRange global(round_up(l.out_pitch / l.step_x, wg_x), round_up(out_height, wg_y),
                           round_up(out_depth, wg_z));

  // 4. Run: one enqueue of the kernel with its arguments.
  launch.run = [=, &queue]() mutable {
    return correlate(cl::EnqueueArgs(queue, global, local), input, filter, output, in_pitch, in_slice,
                     out_pitch, out_slice, out_width, out_height, out_depth);
  };
  // 5. Read: the output buffer back, its BANK floats per voxel separated
  //    into BANK planes stacked in one image (plane k's rows start at
  //    k * out_height * out_depth).
  const std::size_t out_floats = l.out_bytes / sizeof(float), planes = static_cast<std::size_t>(bank);
  launch.read = [=, &queue] {
    std::vector<float> all(out_floats);
    cl::copy(queue, output, all.begin(), all.end());
    Image stacked(out_width, out_height * out_depth * bank);
    for (std::size_t k = 0; k < planes; ++k)
      for (int z = 0; z < out_depth; ++z)
        for (int y = 0; y < out_height; ++y)
          for (int x = 0; x < out_width; ++x)
            stacked.at(x, (static_cast<int>(k) * out_depth + z) * out_height + y) =
                all[(z * l.out_slice + y * l.out_pitch + x) * planes + k];
    return stacked;
  };
  launch.work_group = shape_text(local);
  return prepared;
}

std::vector<Image> checked_planes(const Image& stacked, int bank) {
  std::vector<Image> planes = split_planes(stacked, bank);
  for (std::size_t k = 0; k < planes.size(); ++k) check_result(planes[k], "output volume " + std::to_string(k));
  return planes;
}

VolumeRun run_volume(VolumeLaunch& prepared, int reps) {
  VolumeRun run;
  run.out_width = prepared.layout.out_width;
  run.out_height = prepared.layout.out_height;
  run.out_depth = prepared.layout.out_depth;
  run.stats = run_launch(prepared.launch, reps, 1,
                         [&] { run.outputs = checked_planes(prepared.launch.read(), prepared.bank); });
  run.work_group = prepared.launch.work_group;
  return run;
}

VolumeRun run_volume(DeviceContext& device, const Volume& volume,
                     const std::vector<Filter3D>& filters, const std::string& variant,
                     int block_x, int wg_x, int wg_y, int wg_z, int reps) {
  VolumeLaunch prepared = prepare_volume(device, volume, filters, variant, block_x, wg_x, wg_y, wg_z);
  return run_volume(prepared, reps);
}

}  // namespace conv
