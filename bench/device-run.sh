#!/usr/bin/env bash
# Runs the lessons' measurements on a machine with an NVIDIA GPU whose OpenCL
# driver is installed but not registered with the ICD loader (as on the H100
# machine the results in docs/results/*-h100.csv come from). Build first
# (./quickstart.sh build), then, on that machine, from the repository root:
#   OUT=/some/folder bench/device-run.sh [NVIDIA_OPENCL_LIBRARY]
# Writes the CSVs and logs into $OUT. Each part runs even if another fails;
# PARTS picks some: tour conformance seed001 seed000 seed004 vector blocks
# unroll perf kernelinfo torch bank volume histogram (default: the first five).
set -uo pipefail
cd "$(dirname "$0")/.."
: "${OUT:?set OUT to the folder for results}"
lib="${1:-/usr/local/nvidia/lib64/libnvidia-opencl.so.1}"
mkdir -p /tmp/icd && echo "$lib" > /tmp/icd/nvidia.icd
export OCL_ICD_VENDORS=/tmp/icd
# The ICD loader, if the machine has none of its own: a copy made at build time.
ldconfig -p | grep -q libOpenCL.so.1 || export LD_LIBRARY_PATH="$PWD/build/devlib"
export CLCONV_PLATFORM=NVIDIA
export RESULTS="$OUT"
log="$OUT/device-log.txt"
{
  echo "== $(date -u +%F) =="
  nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,memory.total --format=csv
  build/bin/tour --list-devices
} > "$log" 2>&1

for part in ${PARTS:-tour conformance seed001 seed000 seed004}; do
  echo "== $part ==" >> "$log"
  case "$part" in
    tour)
      build/bin/tour --reps 20 --all-variants > "$OUT/tour-h100.txt" 2>> "$log"
      build/bin/tour --reps 20 --all-variants --csv > "$OUT/tour-h100.csv" 2>> "$log" ;;
    conformance)
      build/bin/conformance_tests > "$OUT/conformance-h100.txt" 2>&1
      tail -n 3 "$OUT/conformance-h100.txt" >> "$log" ;;
    seed004)
      SEED004_IMAGE=4096x4096 SEED004_REPS=20 bench/experiments.sh seed004 h100 2>> "$log" ;;
    kernelinfo)
      for f in 3 5 7 15 31; do
        build/bin/kernel-info --step 6 --filter box:$f >> "$OUT/kernel-info-h100.txt" 2>> "$log"
      done ;;
    histogram)
      LOG="$OUT/histogram-log.txt" bench/histogram.sh h100 2>> "$log" ;;
    torch)
      python3 bench/torch_conv2d.py --size 8192x8192 --filters 3,5,7,15,31 \
        > "$OUT/torch-h100.csv" 2>> "$log" ;;
    *)
      bench/experiments.sh "$part" h100 2>> "$log" ;;
  esac
  echo "exit status $?" >> "$log"
done
grep -E "^==|exit status|passed|failed" "$log"
cat "$OUT/tour-h100.txt" 2>/dev/null
