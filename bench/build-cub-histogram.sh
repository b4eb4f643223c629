#!/usr/bin/env bash
# Builds bench/cub_histogram.cu into build/bin/cub-histogram with nvcc (CUDA
# 12 or later, which ships CUB), for Hopper (sm_90) and as PTX for newer GPUs.
#   bench/build-cub-histogram.sh [nvcc options]
set -euo pipefail
cd "$(dirname "$0")/.."
nvcc="${NVCC:-nvcc}"
command -v "$nvcc" > /dev/null || { echo "build-cub-histogram.sh: no nvcc (set NVCC)" >&2; exit 2; }
mkdir -p build/bin
"$nvcc" -O3 -std=c++17 -gencode arch=compute_90,code=sm_90 -gencode arch=compute_90,code=compute_90 \
  -o build/bin/cub-histogram.tmp bench/cub_histogram.cu "$@"
mv build/bin/cub-histogram.tmp build/bin/cub-histogram
echo "build-cub-histogram.sh: built build/bin/cub-histogram" >&2
