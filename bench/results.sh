#!/usr/bin/env bash
# The same-run comparison behind docs/results.md: the serial baseline and
# every step (each at its default variant, and step 4's "fixed", which step 5
# builds on) at F = 3, 5, 7, 15, 31 (box
# filters), then cv::filter2D on the same images and filters, in one CSV.
#   bench/results.sh TAG [sweep options]
# writes docs/results/perf-TAG.csv (or $RESULTS/perf-TAG.csv). TAG names the
# device (pocl, ...); options after it go to sweep and select the device.
# RESULTS_IMAGE (default 2048x2048), RESULTS_REPS (default 5) and BUILD (the
# build folder, default build) change the run. The OpenCV rows need
# $BUILD/bin/opencv-filter2d, built when CMake found OpenCV (Debian:
# libopencv-dev); without it they are left out, with a note. OpenCV runs
# with one thread and with one per hardware thread, cv::sepFilter2D too for
# the separable filters; scipy.ndimage.correlate's rows come from
# bench/scipy_correlate.py where SciPy is installed (python3-scipy). The load
# average goes into perf-TAG-load.txt, and the last lines are step 6 against
# the fastest OpenCV call (bench/vs-opencv.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
tag="${1:?usage: bench/results.sh TAG [sweep options]}"
shift
results="${RESULTS:-docs/results}"
build="${BUILD:-build}"
image="${RESULTS_IMAGE:-2048x2048}"
reps="${RESULTS_REPS:-5}"
filters=box:3,box:5,box:7,box:15,box:31
mkdir -p "$results"
out="$results/perf-$tag.csv"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
load="$(cut -d' ' -f1-3 /proc/loadavg)"
"$build/bin/sweep" --variants default,fixed --images "$image" --filters "$filters" --wgs auto --serial --reps "$reps" \
  --output "$tmp/sweep.csv" "$@"
cp "$tmp/sweep.csv" "$tmp/all.csv"
if [ -x "$build/bin/opencv-filter2d" ]; then
  threads=1
  [ "$(nproc)" -gt 1 ] && threads="1,$(nproc)"
  "$build/bin/opencv-filter2d" --images "$image" --filters "$filters" --reps "$reps" \
    --threads "$threads" --no-header >> "$tmp/all.csv"
else
  echo "results.sh: $build/bin/opencv-filter2d not built (no OpenCV): no opencv.filter2D rows" >&2
fi
py="${PYTHON:-python3}"  # a Python with SciPy (Debian: /usr/bin/python3 and python3-scipy)
if "$py" -c "import scipy.ndimage" 2> /dev/null; then
  "$py" bench/scipy_correlate.py --size "$image" --filters 3,5,7,15,31 --reps "$reps" \
    --no-header >> "$tmp/all.csv"
else
  echo "results.sh: no SciPy (Debian: python3-scipy): no scipy.correlate rows" >&2
fi
mv "$tmp/all.csv" "$out"
# The machine's load beside the numbers: a shared CPU's timings mean little without it.
echo "load average (1, 5, 15 min) before: $load, after: $(cut -d' ' -f1-3 /proc/loadavg)" \
  > "${out%.csv}-load.txt"
echo "results.sh: wrote $out and ${out%.csv}-load.txt" >&2
bench/vs-opencv.sh --from "$out"
