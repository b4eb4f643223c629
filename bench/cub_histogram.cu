// cub-histogram: the strongest GPU peer of the histogram lesson, CUB's
// cub::DeviceHistogram::MultiHistogramEven<3, 3> (interleaved RGB, 256 bins
// a channel), on the same images as `histogram` (noise: and solid:, made by
// the same generator), checked against a serial count, timed with CUDA
// events. Built with nvcc by bench/build-cub-histogram.sh (not by CMake: the
// course needs no CUDA). Prints CSV rows in the histogram lesson's columns:
// phase "kernels" (the CUB call) and "histogram" (the call and the copy of
// the 768 counts to the host, as the lesson's whole call).
//   cub-histogram --image noise:7728x4354 --image solid:7728x4354 --reps 20
#include <cub/cub.cuh>
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <string>
#include <vector>

namespace {

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) {
    std::fprintf(stderr, "cub-histogram: %s: %s\n", what, cudaGetErrorString(e));
    std::exit(1);
  }
}

// The generator of histogram/rgb_image.cpp, so that noise:WxH[:SEED] is the same image.
struct XorShift {
  std::uint32_t state;
  explicit XorShift(std::uint32_t seed) : state(seed * 2654435761u + 12345u) {
    if (state == 0) state = 1;
  }
  std::uint32_t next() {
    state ^= state << 13;
    state ^= state >> 17;
    state ^= state << 5;
    return state;
  }
};

struct Image {
  std::string spec;
  int width = 0, height = 0;
  std::vector<std::uint8_t> rgb;
};

Image make_image(const std::string& spec) {
  Image im;
  im.spec = spec;
  const auto colon = spec.find(':');
  const std::string kind = spec.substr(0, colon);
  unsigned seed = 1;
  if (colon == std::string::npos ||
      std::sscanf(spec.c_str() + colon + 1, "%dx%d:%u", &im.width, &im.height, &seed) < 2 ||
      im.width < 1 || im.height < 1 || (kind != "noise" && kind != "solid")) {
    std::fprintf(stderr, "cub-histogram: --image: noise:WxH[:SEED] or solid:WxH, not '%s'\n",
                 spec.c_str());
    std::exit(2);
  }
  im.rgb.resize(3ull * im.width * im.height);
  if (kind == "noise") {
    XorShift rng(seed);
    for (auto& b : im.rgb) b = static_cast<std::uint8_t>(rng.next() >> 24);
  } else {
    std::fill(im.rgb.begin(), im.rgb.end(), 0x80);  // histogram's default solid color, 808080
  }
  return im;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> specs;
  int reps = 20;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--image" && i + 1 < argc) specs.push_back(argv[++i]);
    else if (a == "--reps" && i + 1 < argc) reps = std::max(1, std::atoi(argv[++i]));
    else {
      std::fprintf(stderr, "usage: cub-histogram --image noise:WxH[:SEED]|solid:WxH ... [--reps N]\n");
      return a == "--help" ? 0 : 2;
    }
  }
  if (specs.empty()) specs.push_back("noise:7728x4354");
  cudaDeviceProp prop;
  check(cudaGetDeviceProperties(&prop, 0), "cudaGetDeviceProperties");
  int driver = 0;
  check(cudaDriverGetVersion(&driver), "cudaDriverGetVersion");
  char date[16];
  const std::time_t now = std::time(nullptr);
  std::strftime(date, sizeof date, "%Y-%m-%d", std::gmtime(&now));
  std::printf("device,driver,date,step,variant,phase,image,width,height,chunk,wg,reps,first_ms,"
              "median_ms,min_ms,mean_ms,gbps,copy_gbps,pct_copy,speedup_serial\n");
  for (const auto& spec : specs) {
    const Image im = make_image(spec);
    const int pixels = im.width * im.height;
    std::uint8_t* d_rgb = nullptr;
    unsigned* d_hist[3];
    unsigned* d_counts = nullptr;  // the three histograms back to back: one copy brings all 768
    check(cudaMalloc(&d_rgb, im.rgb.size()), "cudaMalloc");
    check(cudaMalloc(&d_counts, 768 * sizeof(unsigned)), "cudaMalloc");
    for (int c = 0; c < 3; ++c) d_hist[c] = d_counts + 256 * c;
    check(cudaMemcpy(d_rgb, im.rgb.data(), im.rgb.size(), cudaMemcpyHostToDevice), "upload");
    int levels[3] = {257, 257, 257};
    unsigned lower[3] = {0, 0, 0}, upper[3] = {256, 256, 256};
    std::size_t temp_bytes = 0;
    check(cub::DeviceHistogram::MultiHistogramEven<3, 3>(nullptr, temp_bytes, d_rgb, d_hist, levels,
                                                          lower, upper, pixels),
          "temp size");
    void* d_temp = nullptr;
    check(cudaMalloc(&d_temp, temp_bytes), "cudaMalloc temp");
    auto call = [&] {
      check(cub::DeviceHistogram::MultiHistogramEven<3, 3>(d_temp, temp_bytes, d_rgb, d_hist, levels,
                                                            lower, upper, pixels),
            "MultiHistogramEven");
    };
    // Page-locked host memory: the copy needs no staging buffer.
    unsigned* h_counts = nullptr;
    check(cudaMallocHost(&h_counts, 768 * sizeof(unsigned)), "cudaMallocHost");
    auto read_back = [&] {
      check(cudaMemcpy(h_counts, d_counts, 768 * sizeof(unsigned), cudaMemcpyDeviceToHost),
            "read back");
    };
    // Poisoned counts first, so that the check sees what this call wrote.
    check(cudaMemset(d_counts, 0xff, 768 * sizeof(unsigned)), "poison");
    call();
    read_back();
    std::vector<unsigned> expected(768, 0);
    for (std::size_t i = 0; i < im.rgb.size(); ++i) ++expected[256 * (i % 3) + im.rgb[i]];
    if (!std::equal(expected.begin(), expected.end(), h_counts)) {
      std::fprintf(stderr, "cub-histogram: %s: counts differ from the serial count\n", spec.c_str());
      return 1;
    }
    std::fprintf(stderr, "cub-histogram: %s: counts match the serial count\n", spec.c_str());
    cudaEvent_t start, stop;
    check(cudaEventCreate(&start), "event");
    check(cudaEventCreate(&stop), "event");
    std::vector<double> kernel_ms, whole_ms;
    for (int i = 0; i < reps + 1; ++i) {
      check(cudaDeviceSynchronize(), "sync");
      const auto t0 = std::chrono::steady_clock::now();
      check(cudaEventRecord(start), "record");
      call();
      check(cudaEventRecord(stop), "record");
      read_back();  // blocking: the counts are on the host after it
      const auto t1 = std::chrono::steady_clock::now();
      float ms = 0;
      check(cudaEventElapsedTime(&ms, start, stop), "elapsed");
      if (i == 0) continue;  // warm-up
      kernel_ms.push_back(ms);
      whole_ms.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
    }
    const double bytes = static_cast<double>(im.rgb.size());
    for (int k = 0; k < 2; ++k) {
      const auto& v = k == 0 ? kernel_ms : whole_ms;
      double sum = 0;
      for (double t : v) sum += t;
      const double med = median(v);
      std::printf("%s,CUDA driver %d.%d,%s,cub,MultiHistogramEven<3;3>,%s,%s,%d,%d,,,%d,,%.6g,%.6g,%.6g,%.6g,,,\n",
                  prop.name, driver / 1000, (driver % 1000) / 10, date, k == 0 ? "kernels" : "histogram",
                  spec.c_str(), im.width, im.height, reps, med, *std::min_element(v.begin(), v.end()),
                  sum / v.size(), bytes / (med * 1e6));
    }
    cudaFree(d_temp);
    cudaFree(d_counts);
    cudaFreeHost(h_counts);
    cudaFree(d_rgb);
  }
  return 0;
}
