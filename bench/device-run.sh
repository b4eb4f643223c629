#!/usr/bin/env bash
# Runs the lessons' measurements on a machine with an NVIDIA GPU whose OpenCL
# driver is installed but not registered with the ICD loader (as on the H100
# machine the results in docs/results/*-h100.csv come from). Build first
# (./quickstart.sh build), then, on that machine, from the repository root:
#   OUT=/some/folder bench/device-run.sh [NVIDIA_OPENCL_LIBRARY]
# Writes the CSVs and logs into $OUT. Each part runs even if another fails;
# PARTS picks some: tour conformance steps1to4 wg-shapes unroll-widths vector blocks
# unroll tuning inline perf kernelinfo ptxmix buildtime torch cupy cufft bank
# volume histogram histpeers verify crossover separable-box fft-tiled
# fft-tiled-floor (default: the first five). crossover: bench/crossover.sh (steps 7 to 10
# against F on 8192x8192), step 8's fused kernels beside its passes
# (experiments.sh separable-strip) and torch's conv2d over the same widths,
# in one run (crossover-TAG.csv, separable-strip-TAG.csv,
# torch-crossover-TAG.csv). fft-tiled: step 10 over
# its tiles and layouts, each tile at least F wide, work-groups 64 to 512 (the
# registers layout at N work-items, one per line of its N-point tile)
# (fft-tiled-TAG.csv), its --verify runs and its
# kernels' ptxas report (fft-tiled-TAG.txt). fft-tiled-floor: the 64-point
# tile's kernel beside copies of it built from candidates/fused.cl with parts taken
# out (no transform passes: only the tiles' load and store; no reads of the
# spectrum; no reads of the image) and as it was before its inverse row
# passes skipped the rows nobody reads (every-row), F = 7, 15 and 31 on 8192x8192
# (fft-tiled-floor-TAG.csv). verify: the conformance suite and a few timed
# runs of every step, the bank and the volume (verify-kernels-TAG.txt), a quick check
# that a change to the kernels or launchers kept them correct and as fast. TAG names the device in the CSVs' names
# (default h100). cufft: steps 6 and 9 beside correlation through cuFFT
# (bench/cupy_fftconvolve.py), F = 3 to 63 on 8192x8192, in cufft-TAG.csv,
# with steps 7 and 10.
# The peers need python3 with torch and cupy; histpeers also
# runs build/bin/cub-histogram when it is there (bench/build-cub-histogram.sh).
# KERNELINFO_SETS: extra kernel-info runs, "F:NAME=V,NAME=V F:..." each;
# PTXMIX_SETS: the kernels ptxmix counts besides the defaults, "F:NAME=V,..."
# each (ptxmix also counts the machine code, sass-mix-TAG.txt, where ptxas and
# cuobjdump are installed); buildtime: step 7 with BUILDTIME_SETS
# ("F:NAME=V,..." each; default --weights inline at each width, and unrolled
# at 31), the build for the filter beside the kernel's time
# (buildtime-TAG.txt).
# The driver's disk cache of built programs is off (CUDA_CACHE_DISABLE), so
# every build is timed afresh.
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
export CUDA_CACHE_DISABLE=1
export RESULTS="$OUT"
tag="${TAG:-h100}"
log="$OUT/device-log.txt"
# The first line of each text file this run writes: device, driver, date.
stamp="# $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1 | sed 's/, /, driver /'), measured $(date -u +%F)"
{
  echo "== $(date -u +%F) =="
  nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,memory.total --format=csv
  build/bin/tour --list-devices
} > "$log" 2>&1

for part in ${PARTS:-tour conformance steps1to4 wg-shapes unroll-widths}; do
  echo "== $part ==" >> "$log"
  case "$part" in
    tour)
      build/bin/tour --reps 20 --all-variants > "$OUT/tour-$tag.txt" 2>> "$log"
      build/bin/tour --reps 20 --all-variants --csv > "$OUT/tour-$tag.csv" 2>> "$log" ;;
    conformance)
      build/bin/conformance_tests > "$OUT/conformance-$tag.txt" 2>&1
      tail -n 3 "$OUT/conformance-$tag.txt" >> "$log" ;;
    unroll-widths)
      UNROLL_WIDTHS_IMAGE=4096x4096 UNROLL_WIDTHS_REPS=20 bench/experiments.sh unroll-widths "$tag" 2>> "$log" ;;
    kernelinfo)
      echo "$stamp; bench/device-run.sh part kernelinfo" > "$OUT/kernel-info-$tag.txt"
      for f in 3 5 7 15 31; do
        build/bin/kernel-info --step 6 --filter box:$f >> "$OUT/kernel-info-$tag.txt" 2>> "$log"
      done
      for item in ${KERNELINFO_SETS:-}; do
        sets=()
        for s in $(echo "${item#*:}" | tr , ' '); do sets+=(--set "$s"); done
        build/bin/kernel-info --step 7 --filter "box:${item%%:*}" "${sets[@]}" \
          >> "$OUT/kernel-info-$tag.txt" 2>> "$log"
      done ;;
    ptxmix)  # instructions of step 7's PTX (and, with ptxas, its machine code): the defaults and PTXMIX_SETS
      sass=0; command -v ptxas > /dev/null && command -v cuobjdump > /dev/null && sass=1
      arch=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -1 | tr -d .)
      [ $sass = 1 ] && echo "$stamp; bench/device-run.sh part ptxmix" > "$OUT/sass-mix-$tag.txt"
      [ $sass = 1 ] && echo "# kernel FFMA FFMA-with-constant-bank FFMA-with-immediate LDS LDC instructions (ptxas -arch=sm_$arch, cuobjdump -sass)" \
        >> "$OUT/sass-mix-$tag.txt"
      { echo "$stamp; bench/device-run.sh part ptxmix"
        echo "# kernel fma.rn.f32 ld.const ld.shared.f32 ld.shared.v4.f32 registers"; } > "$OUT/ptx-mix-$tag.txt"
      for item in 3 5 7 15 31 ${PTXMIX_SETS:-15:weights=local,unroll=off 31:weights=local,unroll=off 15:weights=constant,unroll=off 31:weights=constant,unroll=off 15:weights=inline,unroll=on 31:weights=inline,unroll=on}; do
        f=${item%%:*}; sets=(); name=F$f
        if [ "$item" != "$f" ]; then
          for s in $(echo "${item#*:}" | tr , ' '); do sets+=(--set "$s"); name=$name-${s//=/_}; done
        fi
        dir="$OUT/ptx/$name"
        mkdir -p "$dir"
        build/bin/kernel-info --step 7 --filter "random:$f" "${sets[@]}" --dir "$dir" > "$dir/info.txt" 2>> "$log"
        p=$(ls "$dir"/*.ptx | head -1)
        echo "$name $(grep -c 'fma.rn.f32' "$p") $(grep -c 'ld.const' "$p") $(grep -c 'ld.shared.f32' "$p")" \
          "$(grep -c 'ld.shared.v4.f32' "$p") $(grep -o 'Used [0-9]* registers' "$dir/info.txt" | head -1)" \
          >> "$OUT/ptx-mix-$tag.txt"
        # The binary ends in NUL bytes, which ptxas reads as an unexpected end of file.
        if [ $sass = 1 ] && tr -d '\000' < "$p" > "$dir/kernel.ptx" &&
          ptxas -arch=sm_$arch "$dir/kernel.ptx" -o "$dir/kernel.cubin" 2>> "$log"; then
          cuobjdump -sass "$dir/kernel.cubin" | grep -E '^ +/\*[0-9a-f]{4,}\*/' > "$dir/kernel.sass"
          echo "$name $(grep -c ' FFMA' "$dir/kernel.sass") $(grep -cE ' FFMA .*c\[0x' "$dir/kernel.sass")" \
            "$(grep -cE ' FFMA [^;]*, -?[0-9][0-9.e+-]*(, |;)' "$dir/kernel.sass") $(grep -c ' LDS' "$dir/kernel.sass")" \
            "$(grep -c ' LDC' "$dir/kernel.sass") $(wc -l < "$dir/kernel.sass")" >> "$OUT/sass-mix-$tag.txt"
        fi
      done ;;
    buildtime)  # step 7 with the weights compiled in: each build beside its kernel time, BUILDTIME_SETS
      { echo "$stamp; bench/device-run.sh part buildtime (CUDA_CACHE_DISABLE=1)"
      for item in ${BUILDTIME_SETS:-3:weights=inline 5:weights=inline 7:weights=inline 15:weights=inline 31:weights=inline 31:weights=inline,unroll=on}; do
        f=${item%%:*}; opts=()
        for s in $(echo "${item#*:}" | tr , ' '); do opts+=(--"${s%%=*}" "${s#*=}"); done
        echo "== F = $f, ${opts[*]}, random filter, 8192x8192"
        build/bin/step7-tuned --image synthetic:8192x8192 --filter "random:$f" "${opts[@]}" \
          --reps 20 2>&1 | grep -v '^$'
      done; } > "$OUT/buildtime-$tag.txt" 2>> "$log" ;;
    histogram)
      PARTS="${HISTOGRAM_PARTS:-main bench floor breakdown full}" LOG="$OUT/histogram-log.txt" \
        bench/histogram.sh "$tag" 2>> "$log" ;;
    histpeers)
      { [ -x build/bin/cub-histogram ] &&
          build/bin/cub-histogram --image noise:7728x4354 --image solid:7728x4354 --reps 20
        python3 bench/histogram_peers.py --peers torch,cupy | tail -n +2; } \
        > "$OUT/histogram-peers-$tag.csv" 2>> "$log" ;;
    verify)
      v="$OUT/verify-kernels-$tag.txt"
      { echo "$stamp; bench/device-run.sh part verify"
        echo "## conformance_tests"; build/bin/conformance_tests | tail -n 2
        echo "## timings (8192x8192; steps 6 and 7 at F = 3, 7, 31; steps 1-5 box:7; step 8 box:31; step 9 random:31)"
        for f in 3 7 31; do
          build/bin/step6-multioutput --image synthetic:8192x8192 --filter box:$f --reps 20 --csv
          build/bin/step7-tuned --image synthetic:8192x8192 --filter box:$f --reps 20 --csv | tail -n 1
        done
        for s in step1-naive step2-constant step3-local step4-unroll step5-vector; do
          build/bin/$s --image synthetic:8192x8192 --filter box:7 --reps 10 --csv | tail -n 1
        done
        build/bin/step8-separable --image synthetic:8192x8192 --filter box:31 --reps 20 --csv | tail -n 1
        build/bin/step9-fft --image synthetic:8192x8192 --filter random:31 --reps 10 --csv | tail -n 1
        echo "## bank, volume"
        build/bin/step6-bank --image synthetic:1031x517 --filter-width 7 --seed 3 --bank 4 --verify
        build/bin/step6-volume --size 131x67x45 --verify
        build/bin/step6-volume
        build/bin/step6-bank --filter-width 5 --bank 1,4 --verify --csv; } > "$v" 2>> "$log" ;;
    torch)
      python3 bench/torch_conv2d.py --size 8192x8192 --filters 3,5,7,15,31 \
        > "$OUT/torch-$tag.csv" 2>> "$log" ;;
    cupy)
      python3 bench/cupy_correlate.py --size 8192x8192 --filters 3,5,7,15,31 \
        > "$OUT/cupy-$tag.csv" 2>> "$log" ;;
    cufft)  # steps 9 and 10 beside cuFFT (CuPy) and step 7, in one run
      { build/bin/sweep --steps 7,9,10 --images 8192x8192 --filters random:3,random:7,random:15,random:31,random:63 \
          --wgs auto --set product=fused --reps 20 --no-check
        python3 bench/cupy_fftconvolve.py --size 8192x8192 --filters 3,7,15,31,63 | tail -n +2; } \
        > "$OUT/cufft-$tag.csv" 2>> "$log" ;;
    crossover)
      bench/crossover.sh "$tag" 8192x8192 2>> "$log"
      bench/experiments.sh separable-strip "$tag" 2>> "$log"
      python3 bench/torch_conv2d.py --size 8192x8192 --filters 3,5,7,9,11,15,21,31,45,63 \
        > "$OUT/torch-crossover-$tag.csv" 2>> "$log" ;;
    separable-box)  # step 8's box kernel beside its passes (experiments.sh separable-box)
      bench/experiments.sh separable-box "$tag" 2>> "$log" ;;
    fft-tiled)  # step 10: every tile that fits in each layout; four work-groups (registers: N); --verify; ptxas
      # Step 10 refuses a tile narrower than the filter (a usage error ends a
      # sweep), so each width sweeps the tiles at least that wide.
      wide() { local t s=""; for t in $2; do [ "$t" -ge "$1" ] && s+="${s:+,}$t"; done; echo "$s"; }
      tiled() { build/bin/sweep --steps 10 --images 8192x8192 --filters "random:$1" --reps 10 --no-check "${@:2}"; }
      { for f in 3 7 15 31 45 63; do
          [ -n "$(wide $f "16 32 64")" ] &&
            tiled $f --set tile="$(wide $f "16 32 64")" --set layout=local --wgs 64x1,128x1,256x1,512x1
          tiled $f --set tile=128 --set layout=split --wgs 64x1,128x1,256x1,512x1
          for t in $(wide $f "32 64" | tr , ' '); do tiled $f --set tile=$t --set layout=registers --wgs "${t}x1"; done
        done | awk 'NR == 1 || !/^device,/'
      } > "$OUT/fft-tiled-$tag.csv" 2>> "$log"
      { echo "$stamp; bench/device-run.sh part fft-tiled"
        for f in random:7 random:31 box:31 sobel-x random:63; do
          build/bin/step10-fft-tiled --image synthetic:1919x1079 --filter $f --verify --reps 3
        done
        for t in 16 32 64; do build/bin/kernel-info --step 10 --filter random:15 --set tile=$t --set layout=local; done
        for t in 32 64; do
          build/bin/kernel-info --step 10 --filter random:15 --set tile=$t --set layout=registers --wg "${t}x1"
        done
        build/bin/kernel-info --step 10 --filter random:31 --set tile=128 --set layout=split
      } > "$OUT/fft-tiled-$tag.txt" 2>&1 ;;
    fft-tiled-floor)  # step 10's fused kernel, and copies of it with parts taken out
      # (candidates/fused.cl, its kernel renamed convolve so that --kernel
      # runs it in the lesson's place: it takes the same arguments)
      probes="$OUT/fft-tiled-floor"
      mkdir -p "$probes"
      sed 's/void convolve_fused(/void convolve(/' step10-fft-tiled/candidates/fused.cl > "$probes/fused.cl"
      python3 bench/fft_tiled_probes.py "$probes/fused.cl" "$probes" 2>> "$log" &&
      for f in random:7 random:15 random:31; do
        for probe in kernel memory no-spectrum no-image every-row; do
          kernel=()
          [ "$probe" = kernel ] && kernel=(--layout fused) || kernel=(--kernel "$probes/$probe.cl")
          build/bin/step10-fft-tiled --image synthetic:8192x8192 --filter "$f" --tile 64 --wg 128x1 \
            --reps 20 --csv "${kernel[@]}" 2>> "$log" |
            sed -E "s/,step10-fft-tiled,default tile=64( layout=fused)?,/,step10-fft-tiled,$probe tile=64,/"
        done
      done | awk 'NR == 1 || !/^device,/' > "$OUT/fft-tiled-floor-$tag.csv" ;;
    *)
      bench/experiments.sh "$part" "$tag" 2>> "$log" ;;
  esac
  echo "exit status $?" >> "$log"
done
grep -E "^==|exit status|passed|failed" "$log"
cat "$OUT/tour-$tag.txt" 2>/dev/null
