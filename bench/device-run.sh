#!/usr/bin/env bash
# Runs the lessons' measurements on a machine with an NVIDIA GPU whose OpenCL
# driver is installed but not registered with the ICD loader (as on the H100
# machine the results in docs/results/*-h100.csv come from). Build first
# (./quickstart.sh build), then, on that machine, from the repository root:
#   OUT=/some/folder bench/device-run.sh [NVIDIA_OPENCL_LIBRARY]
# Writes the CSVs and logs into $OUT. Each part runs even if another fails;
# PARTS picks some: tour conformance seed001 seed000 seed004 vector blocks
# unroll tuning perf kernelinfo ptxmix torch cupy bank volume histogram histpeers
# (default: the first five). TAG names the device in the CSVs' names
# (default h100). The peers need python3 with torch and cupy; histpeers also
# runs build/bin/cub-histogram when it is there (bench/build-cub-histogram.sh).
# KERNELINFO_SETS: extra kernel-info runs, "F:NAME=V,NAME=V F:..." each;
# HISTOGRAM_PARTS: the parts of bench/histogram.sh to run (default all).
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
tag="${TAG:-h100}"
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
      build/bin/tour --reps 20 --all-variants > "$OUT/tour-$tag.txt" 2>> "$log"
      build/bin/tour --reps 20 --all-variants --csv > "$OUT/tour-$tag.csv" 2>> "$log" ;;
    conformance)
      build/bin/conformance_tests > "$OUT/conformance-$tag.txt" 2>&1
      tail -n 3 "$OUT/conformance-$tag.txt" >> "$log" ;;
    seed004)
      SEED004_IMAGE=4096x4096 SEED004_REPS=20 bench/experiments.sh seed004 "$tag" 2>> "$log" ;;
    kernelinfo)
      for f in 3 5 7 15 31; do
        build/bin/kernel-info --step 6 --filter box:$f >> "$OUT/kernel-info-$tag.txt" 2>> "$log"
      done
      for item in ${KERNELINFO_SETS:-}; do
        sets=()
        for s in $(echo "${item#*:}" | tr , ' '); do sets+=(--set "$s"); done
        build/bin/kernel-info --step 6 --filter "box:${item%%:*}" "${sets[@]}" \
          >> "$OUT/kernel-info-$tag.txt" 2>> "$log"
      done ;;
    ptxmix)  # instructions of step 6's PTX: the default at each width, and the weights in constant memory
      for cfg in "3" "5" "7" "15" "31" "15 weights=constant" "31 weights=constant"; do
        set -- $cfg; f=$1; shift; sets=(); name=F$f
        for s in "$@"; do sets+=(--set "$s"); name=$name-${s//=/_}; done
        dir="$OUT/ptx/$name"
        mkdir -p "$dir"
        build/bin/kernel-info --step 6 --filter "box:$f" "${sets[@]}" --dir "$dir" > "$dir/info.txt" 2>> "$log"
        p=$(ls "$dir"/*.ptx | head -1)
        echo "$name $(grep -c 'fma.rn.f32' "$p") $(grep -c 'ld.const' "$p") $(grep -c 'ld.shared.f32' "$p")" \
          "$(grep -c 'ld.shared.v4.f32' "$p") $(grep -o 'Used [0-9]* registers' "$dir/info.txt" | head -1)"
      done > "$OUT/ptx-mix-$tag.txt" ;;
    histogram)
      PARTS="${HISTOGRAM_PARTS:-main bench floor breakdown full}" LOG="$OUT/histogram-log.txt" \
        bench/histogram.sh "$tag" 2>> "$log" ;;
    histpeers)
      { [ -x build/bin/cub-histogram ] &&
          build/bin/cub-histogram --image noise:7728x4354 --image solid:7728x4354 --reps 20
        python3 bench/histogram_peers.py --peers torch,cupy | tail -n +2; } \
        > "$OUT/histogram-peers-$tag.csv" 2>> "$log" ;;
    torch)
      python3 bench/torch_conv2d.py --size 8192x8192 --filters 3,5,7,15,31 \
        > "$OUT/torch-$tag.csv" 2>> "$log" ;;
    cupy)
      python3 bench/cupy_correlate.py --size 8192x8192 --filters 3,5,7,15,31 \
        > "$OUT/cupy-$tag.csv" 2>> "$log" ;;
    *)
      bench/experiments.sh "$part" "$tag" 2>> "$log" ;;
  esac
  echo "exit status $?" >> "$log"
done
grep -E "^==|exit status|passed|failed" "$log"
cat "$OUT/tour-$tag.txt" 2>/dev/null
