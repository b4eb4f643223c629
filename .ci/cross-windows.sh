#!/usr/bin/env bash
# Builds every step, the tour, sweep, kernel-info and the histogram for
# Windows with Debian's MinGW-w64, warnings as errors, in build-mingw/.
# Proof that the harness and the steps build on Windows; nothing is run
# (there is no Windows here). The dependencies come through the fetch
# fallback of cmake/dependencies.cmake, pointed at local copies made from
# Debian's headers, so this also checks that fallback without a network.
# OpenCL.dll's import library is made from the loader's exported symbols.
set -euo pipefail
cd "$(dirname "$0")/.."
out=build-mingw
stage="$out/deps"
rm -rf "$stage"
mkdir -p "$stage/opencl/include" "$stage/lib" "$stage/cli11/include" "$stage/stb" \
         "$stage/vkfft/vkFFT" "$stage/opencl_clhpp/include/CL"
# OpenCL's C headers, and the C++ bindings as their own "repository".
cp -r /usr/include/CL "$stage/opencl/include/"
cp /usr/include/CL/opencl.hpp "$stage/opencl_clhpp/include/CL/"
cp -r /usr/include/CLI "$stage/cli11/include/"
cp /usr/include/stb/stb_image.h /usr/include/stb/stb_image_write.h "$stage/stb/"
cp /usr/include/vkFFT.h "$stage/vkfft/vkFFT/"
# The import library: every cl* function the Linux loader exports.
loader=$(ls /usr/lib/x86_64-linux-gnu/libOpenCL.so.1)
{ echo "LIBRARY OpenCL.dll"; echo "EXPORTS"
  nm -D --defined-only "$loader" | awk '$2 == "T" && $3 ~ /^cl/ {sub(/@.*/, "", $3); print "  " $3}' | sort -u
} > "$stage/OpenCL.def"
x86_64-w64-mingw32-dlltool -d "$stage/OpenCL.def" -l "$stage/lib/libOpenCL.dll.a"
stage_abs="$(pwd)/$stage"
cmake -S . -B "$out" -DCMAKE_TOOLCHAIN_FILE=cmake/mingw-w64.cmake -DCMAKE_BUILD_TYPE=Release \
  -DBUILD_TESTING=OFF -DCLCONV_WERROR=ON -DCLCONV_FETCH_DEPS=ON \
  -DOpenCL_INCLUDE_DIR="$stage_abs/opencl/include" -DOpenCL_LIBRARY="$stage_abs/lib/libOpenCL.dll.a" \
  -DFETCHCONTENT_SOURCE_DIR_CLI11="$stage_abs/cli11" -DFETCHCONTENT_SOURCE_DIR_STB="$stage_abs/stb" \
  -DFETCHCONTENT_SOURCE_DIR_VKFFT="$stage_abs/vkfft" -DFETCHCONTENT_SOURCE_DIR_OPENCL_CLHPP="$stage_abs/opencl_clhpp"
targets=(step1-naive step2-constant step3-local step4-unroll step5-vector step6-multioutput step6-bank
         step6-volume step7-tuned step8-separable step9-fft step10-fft-tiled minimal tour sweep kernel-info histogram)
cmake --build "$out" -j "$(nproc)" --target "${targets[@]}"
for t in "${targets[@]}"; do
  f="$out/bin/$t.exe"
  [ -f "$f" ] || { echo "cross-windows: $f was not built" >&2; exit 1; }
done
file "$out/bin/tour.exe"
echo "cross-windows: ${#targets[@]} Windows executables built in $out/bin"
