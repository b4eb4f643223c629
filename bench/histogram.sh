#!/usr/bin/env bash
# The histogram lesson's measurements (docs/histogram.md), one command per device:
#   bench/histogram.sh TAG [device options...]
#   bench/histogram.sh pocl
#   bench/histogram.sh h100 --platform NVIDIA
# writes five CSVs into docs/results/ (or $RESULTS), TAG naming the device:
#   histogram-TAG.csv                 every variant and serial on the source's
#                                     image size (synthetic), GB/s and % of the
#                                     measured copy bandwidth, checked (--verify)
#   histogram-bench-TAG.csv           the same on a random image (noise:) and a
#                                     single-color one (solid:): least and most
#                                     contention
#   histogram-floor-TAG.csv           two kernels that count nothing, run in
#                                     local-atomic's place on the random image:
#                                     floor_launch.cl (the fill and the launch
#                                     alone) and floor_read.cl (reading the
#                                     image and nothing else); three in
#                                     loads-ahead's place: floor_ahead_empty.cl
#                                     (its launch alone), floor_ahead_read.cl
#                                     (its reads alone) and
#                                     floor_ahead_count.cl (its counting alone,
#                                     of hashed bytes); and the fixed
#                                     cost of a call: local-words and one-launch
#                                     on a 16x16 image
#   histogram-sweep-TAG.csv           one-launch on the random image over
#                                     chunk and work-group sizes, and with 1, 4,
#                                     8 and 16 local copies on all three images
#   histogram-lanes-TAG.csv           lane-copies and one-launch on all three
#                                     images: each way of waiting (--wait block,
#                                     spin) and of reading back (--read copy,
#                                     map); then lane-copies with 1, 2 and 4
#                                     loads in flight and 128, 256, 512 pixels
#                                     per work-item (random image)
#   histogram-tune-TAG.csv            histogram --tune on the large synthetic
#                                     image (stores nothing): every candidate's
#                                     whole call (phase call), then the re-timed
#                                     medians of the documented defaults and of
#                                     the winner, timed in turns
#   histogram-breakdown-TAG.csv       the cost of OpenCL, phase by phase, for
#                                     global-partials on 1024x1024 pixels (the
#                                     source's 1048576-element buffer, the histogram post)
#   histogram-breakdown-full-TAG.csv  the same for every variant on the source's
#                                     image size, against the serial count
# The breakdowns run with the drivers' own kernel caches off (PoCL's and
# CUDA's), so that "build (cold)" compiles from nothing and "build (warm)"
# gets only what our binary cache stored. Every run is checked against the
# serial count (--verify); its messages and any error go to $LOG.
#
# Environment (the defaults are what docs/results holds):
#   BUILD=build/bin      where the histogram executable is
#   RESULTS=docs/results where the CSVs go
#   SIZE=7728x4354       the large image (the source's photo); smaller for a slow CPU
#   REPS=20              timed runs per variant and image, after one warm-up
#   ROUNDS=3             fresh start-ups per variant for the full breakdown
#   SMALL_ROUNDS=5       fresh start-ups for the 1024x1024 breakdown
#   LOG=/tmp/histogram-TAG.log
#   PARTS="main bench floor breakdown full"   the CSVs to write, in that order
#                        (sweep, lanes and tune are extra: PARTS="... sweep lanes tune")
#   BUDGET=600           seconds of search for the tune part
# Device options (--platform, --device, --device-type) may also come from
# CLCONV_PLATFORM, CLCONV_DEVICE, CLCONV_DEVICE_TYPE.
set -euo pipefail
cd "$(dirname "$0")/.."
tag="${1:?usage: bench/histogram.sh TAG [device options...]}"
shift
bin="${BUILD:-build/bin}/histogram"
results="${RESULTS:-docs/results}"
size="${SIZE:-7728x4354}"
reps="${REPS:-20}"
[ -x "$bin" ] || { echo "histogram.sh: no $bin (build first, or set BUILD)" >&2; exit 2; }
mkdir -p "$results"
log="${LOG:-${TMPDIR:-/tmp}/histogram-$tag.log}"
: > "$log"

run() {  # run NAME ARGS...: one CSV
  local name="$1"
  shift
  echo "histogram.sh: $name" >&2
  echo "== $name: histogram $* ${device[*]}" >> "$log"
  "$bin" "$@" --csv "${device[@]}" > "$results/$name.tmp.csv" 2>> "$log" ||
    { echo "histogram.sh: $name failed, see $log" >&2
      rm -f "$results/$name.tmp.csv"; exit 1; }
  mv "$results/$name.tmp.csv" "$results/$name.csv"
}
device=("$@")

floors() {  # each floor kernel in local-atomic's or loads-ahead's place; the variant column names the kernel
  local out="$results/histogram-floor-$tag.csv" pair variant kernel name
  echo "histogram.sh: histogram-floor-$tag" >&2
  # local-atomic's floors run after its fill; loads-ahead's (one launch
  # alone, its reads alone, its counting alone of hashed bytes) without one.
  for pair in local-atomic:floor_launch local-atomic:floor_read loads-ahead:floor_ahead_empty \
              loads-ahead:floor_ahead_read loads-ahead:floor_ahead_count; do
    variant="${pair%%:*}" kernel="${pair#*:}"
    name="${kernel//_/-}"
    echo "== histogram-floor-$tag: $kernel.cl" >> "$log"
    "$bin" --image "noise:$size" --variant "$variant" --kernel "histogram/$kernel.cl" \
      --reps "$reps" --limits --csv "${device[@]}" 2>> "$log" | sed "s/,$variant,/,$name,/"
  done > "$out.parts.csv"
  echo "== histogram-floor-$tag: fixed cost, 16x16" >> "$log"
  "$bin" --image noise:16x16 --variant local-words,one-launch,loads-ahead --reps "$reps" --verify --limits \
    --csv "${device[@]}" >> "$out.parts.csv" 2>> "$log"
  awk 'NR == 1 || !/^device,/' "$out.parts.csv" > "$out.tmp.csv"
  rm -f "$out.parts.csv"
  grep -q ',floor-launch,kernels,' "$out.tmp.csv" && grep -q ',floor-read,kernels,' "$out.tmp.csv" &&
    grep -q ',floor-ahead-count,kernels,' "$out.tmp.csv" &&
    grep -q ',one-launch,call,noise:16x16,' "$out.tmp.csv" ||
    { echo "histogram.sh: histogram-floor-$tag failed, see $log" >&2; exit 1; }
  mv "$out.tmp.csv" "$out"
}

sweep() {  # one-launch over chunk x wg (random image), then 1, 4, 8 and 16 copies (all images)
  local out="$results/histogram-sweep-$tag.csv" chunk wg copies kernel
  echo "histogram.sh: histogram-sweep-$tag" >&2
  {
    for wg in 128 256; do
      for chunk in 64 128 256 512; do
        echo "== histogram-sweep-$tag: chunk $chunk wg $wg" >> "$log"
        "$bin" --image "noise:$size" --variant one-launch --chunk "$chunk" --wg "$wg" \
          --reps "$reps" --limits --verify --csv "${device[@]}" 2>> "$log"
      done
    done
    for copies in 1 4 8 16; do
      kernel="${TMPDIR:-/tmp}/one_launch_copies$copies.cl"
      # The host's -DCOPIES=N is overridden inside the file.
      sed "s/^#ifndef COPIES\$/#undef COPIES\n#define COPIES $copies\n#ifndef COPIES/" \
        histogram/one_launch.cl > "$kernel"
      echo "== histogram-sweep-$tag: $copies copies" >> "$log"
      "$bin" --image "noise:$size" --image "synthetic:$size" --image "solid:$size" \
        --variant one-launch --kernel "$kernel" --reps "$reps" --limits --verify --csv "${device[@]}" \
        2>> "$log" | sed "s/,one-launch,/,one-launch copies=$copies,/"
    done
  } | awk 'NR == 1 || !/^device,/' > "$out.tmp.csv"
  grep -q ',one-launch copies=16,call,' "$out.tmp.csv" ||
    { echo "histogram.sh: histogram-sweep-$tag failed, see $log" >&2; exit 1; }
  mv "$out.tmp.csv" "$out"
}

lanes() {  # the wait and the read-back of lane-copies and one-launch; then lane-copies' loads
  local out="$results/histogram-lanes-$tag.csv" wait read loads chunk kernel
  echo "histogram.sh: histogram-lanes-$tag" >&2
  {
    for wait in block spin; do
      for read in copy map; do
        echo "== histogram-lanes-$tag: --wait $wait --read $read" >> "$log"
        "$bin" --image "noise:$size" --image "synthetic:$size" --image "solid:$size" \
          --variant one-launch,lane-copies --wait "$wait" --read "$read" --reps "$reps" --limits \
          --verify --csv "${device[@]}" 2>> "$log" |
          sed -E "s/,(one-launch|lane-copies),/,\1 wait=$wait read=$read,/"
      done
    done
    for loads in 1 2 4; do
      kernel="${TMPDIR:-/tmp}/lane_copies_loads$loads.cl"
      sed "s/^#ifndef LOADS\$/#undef LOADS\n#define LOADS $loads\n#ifndef LOADS/" \
        histogram/lane_copies.cl > "$kernel"
      for chunk in 128 256 512; do
        echo "== histogram-lanes-$tag: $loads loads, chunk $chunk" >> "$log"
        "$bin" --image "noise:$size" --variant lane-copies --kernel "$kernel" --chunk "$chunk" \
          --reps "$reps" --limits --verify --csv "${device[@]}" 2>> "$log" |
          sed "s/,lane-copies,/,lane-copies loads=$loads,/"
      done
    done
  } | awk 'NR == 1 || !/^device,/' > "$out.tmp.csv"
  grep -q ',lane-copies loads=4,call,' "$out.tmp.csv" &&
    grep -q ',lane-copies wait=spin read=map,call,' "$out.tmp.csv" ||
    { echo "histogram.sh: histogram-lanes-$tag failed, see $log" >&2; exit 1; }
  mv "$out.tmp.csv" "$out"
}

tune_part() {  # the tuner's candidates and its re-timed defaults and winner
  local out="$results/histogram-tune-$tag.csv"
  echo "histogram.sh: histogram-tune-$tag" >&2
  echo "== histogram-tune-$tag: histogram --tune --image synthetic:$size ${device[*]}" >> "$log"
  "$bin" --tune --image "synthetic:$size" --budget "${BUDGET:-600}" --no-store --output "$out.tmp.csv" \
    "${device[@]}" >> "$log" 2>&1 && grep -q ',re-timed winner,' "$out.tmp.csv" ||
    { echo "histogram.sh: histogram-tune-$tag failed, see $log" >&2; rm -f "$out.tmp.csv"; exit 1; }
  mv "$out.tmp.csv" "$out"
}

for part in ${PARTS:-main bench floor breakdown full}; do
  case "$part" in
    main)  run "histogram-$tag" --image "synthetic:$size" --variant all --reps "$reps" --limits \
             --verify ;;
    bench) run "histogram-bench-$tag" --image "noise:$size" --image "solid:$size" --variant all \
             --reps "$reps" --limits --verify ;;
    floor) floors ;;
    sweep) sweep ;;
    lanes) lanes ;;
    tune)  tune_part ;;
    # The drivers' own caches off, so that "build (cold)" starts from nothing.
    breakdown) POCL_KERNEL_CACHE=0 CUDA_CACHE_DISABLE=1 run "histogram-breakdown-$tag" \
             --image synthetic:1024x1024 --variant serial,global-partials --breakdown \
             --reps "${SMALL_ROUNDS:-5}" --verify ;;
    full)  POCL_KERNEL_CACHE=0 CUDA_CACHE_DISABLE=1 run "histogram-breakdown-full-$tag" \
             --image "synthetic:$size" --variant all --breakdown --reps "${ROUNDS:-3}" --verify ;;
    *) echo "histogram.sh: unknown part '$part'" >&2; exit 2 ;;
  esac
done
echo "histogram.sh: $(grep -c ': OK$' "$log") runs verified against the serial count; log $log" >&2
