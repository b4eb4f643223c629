// The host half of step 10's candidate layouts (docs/step10-fft-tiled.md,
// "Candidates"): their spectra and twiddles, and their programs. fused
// (fused.cl): the lesson's kernel with three stages at once in registers
// and three passes fused with their neighbours. split (split.cl): four
// N/2 x N/2 sub-tiles through local memory in turn, the first stage in
// registers, for a tile that local memory cannot hold whole. registers
// (registers.cl): each line of the tile whole in one work-item's
// registers, local memory only for the two exchanges between the column
// and the row transforms. split and registers are built after fused.cl,
// whose helpers they call.
#include "step10-fft-tiled/tuning.hpp"

#include <vector>

#include "step10-fft-tiled/tile.hpp"

namespace conv {
namespace embedded {
extern const char* const step10_fused;      // candidates/fused.cl
extern const char* const step10_split;      // candidates/split.cl
extern const char* const step10_registers;  // candidates/registers.cl
}

std::string TiledFftStep::tune_kernels() const {
  return embedded_source() + embedded::step10_fused + embedded::step10_split + embedded::step10_registers;
}

namespace {

int log2_of(int n) {
  int k = 0;
  while ((1 << k) < n) ++k;
  return k;
}

}  // namespace

cl::Kernel candidate_kernel(DeviceContext& device, Launch& launch, const std::string& layout, const Problem& problem,
                            const cl::Buffer& input, const cl::Buffer& output, int N, int items, int pairs_x) {
  cl::CommandQueue& queue = device.queue();
  const bool split = layout == "split", registers = layout == "registers";
  const int valid = N - problem.filter.width + 1;
  // The filter's spectrum for the whole tile. The registers kernel reads it
  // by column, [kx][ky], so that consecutive work-items (rows ky) read
  // consecutive points.
  std::vector<float> spectrum = filter_spectrum(problem.filter, N);
  if (registers) {
    std::vector<float> by_column(spectrum.size());
    for (int ky = 0; ky < N; ++ky)
      for (int kx = 0; kx < N; ++kx)
        for (int part = 0; part < 2; ++part)
          by_column[2 * (static_cast<std::size_t>(kx) * N + ky) + part] =
              spectrum[2 * (static_cast<std::size_t>(ky) * N + kx) + part];
    spectrum.swap(by_column);
  }
  cl::Buffer spectrum_buffer =
      launch.buffer(CL_MEM_READ_ONLY, spectrum.size() * sizeof(float), "the filter's spectrum", 2 * N);
  cl::copy(queue, spectrum.cbegin(), spectrum.cend(), spectrum_buffer);
  // The fused kernel takes the N/2 twiddles of the lesson's. The split
  // kernel's passes are the fused kernel's on an M = N/2 sub-tile, with its
  // M/2 twiddles; its first stage takes M of the whole tile's. The
  // registers kernel takes all N of them.
  const int M = split ? N / 2 : N;
  const std::vector<float> w = registers ? twiddles(N, N) : twiddles(M);
  cl::Buffer twiddle_buffer = launch.buffer(CL_MEM_READ_ONLY, w.size() * sizeof(float), "the twiddles");
  cl::copy(queue, w.cbegin(), w.cend(), twiddle_buffer);

  // The program: fused.cl, then the candidate's own file, for this M, the
  // work-group's size and, in the registers layout, V (one program per
  // filter width there: the compiler drops what no output reads).
  std::string build = "-D TILE=" + std::to_string(M) + " -D LOG2_TILE=" + std::to_string(log2_of(M)) +
                      " -D ITEMS=" + std::to_string(items);
  if (registers) build += " -D VALID=" + std::to_string(valid);
  std::string source = embedded::step10_fused;
  if (split) source += std::string("\n") + embedded::step10_split;
  if (registers) source += std::string("\n") + embedded::step10_registers;
  const std::string label = "step10-fft-tiled/candidates/" + layout + ".cl";
  const cl::Program program = device.program(source, build, label);
  cl::Kernel kernel = make_kernel(program, "convolve_" + layout, label);
  int arg = 0;
  kernel.setArg(arg++, input);
  kernel.setArg(arg++, problem.padded.width);
  kernel.setArg(arg++, problem.padded.height);
  kernel.setArg(arg++, output);
  kernel.setArg(arg++, problem.out_width());
  kernel.setArg(arg++, problem.out_height());
  kernel.setArg(arg++, spectrum_buffer);
  kernel.setArg(arg++, twiddle_buffer);
  if (split) {
    const std::vector<float> w2 = twiddles(N, M);
    cl::Buffer twiddle2_buffer =
        launch.buffer(CL_MEM_READ_ONLY, w2.size() * sizeof(float), "the first stage's twiddles");
    cl::copy(queue, w2.cbegin(), w2.cend(), twiddle2_buffer);
    kernel.setArg(arg++, twiddle2_buffer);
  }
  if (!registers) kernel.setArg(arg++, valid);  // the registers kernel has it as VALID
  kernel.setArg(arg++, pairs_x);
  return kernel;
}

}  // namespace conv
