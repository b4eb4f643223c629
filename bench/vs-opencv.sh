#!/usr/bin/env bash
# Step 6 (its default configuration) against OpenCV on the CPU, in one run:
# 2048x2048, box filters F = 3, 5, 7, 15, 31, then one line per width with
# step 6's median, cv::filter2D's with 1 and 2 threads and the fastest
# cv::sepFilter2D (box filters are separable), and the ratios of OpenCV's
# time over step 6's: against filter2D with 2 threads, and against the
# fastest OpenCV call of all.
#   bench/vs-opencv.sh [sweep device options]      run both, print the ratios
#   bench/vs-opencv.sh --from FILE.csv             only print them, from a CSV
#                                                  of bench/results.sh
#   bench/vs-opencv.sh --save FILE.csv [options]   run, keep the CSV, and the
#                                                  load average in FILE-load.txt
# Environment: VS_IMAGE (2048x2048), VS_REPS (21: this 2-core machine's launches spread widely), BUILD (build).
set -euo pipefail
cd "$(dirname "$0")/.."
build="${BUILD:-build}"
save=""
if [ "${1:-}" = "--save" ]; then
  save="${2:?usage: bench/vs-opencv.sh --save FILE.csv [sweep device options]}"
  shift 2
fi
if [ "${1:-}" = "--from" ]; then
  csv="${2:?usage: bench/vs-opencv.sh --from FILE.csv}"
else
  [ -x "$build/bin/opencv-filter2d" ] ||
    { echo "vs-opencv.sh: no $build/bin/opencv-filter2d (Debian: libopencv-dev, then rebuild)" >&2; exit 2; }
  tmp="$(mktemp -d)"
  trap 'rm -rf "$tmp"' EXIT
  csv="$tmp/all.csv"
  image="${VS_IMAGE:-2048x2048}" reps="${VS_REPS:-21}" filters=box:3,box:5,box:7,box:15,box:31
  before="$(cut -d' ' -f1-3 /proc/loadavg)"
  echo "vs-opencv.sh: load average before: $before" >&2
  "$build/bin/sweep" --steps 6 --images "$image" --filters "$filters" --wgs auto --reps "$reps" \
    --no-check --output "$tmp/step6.csv" "$@"
  threads=1
  [ "$(nproc)" -gt 1 ] && threads="1,$(nproc)"
  cp "$tmp/step6.csv" "$csv"
  "$build/bin/opencv-filter2d" --images "$image" --filters "$filters" --reps "$reps" \
    --threads "$threads" --no-header >> "$csv"
  after="$(cut -d' ' -f1-3 /proc/loadavg)"
  echo "vs-opencv.sh: load average after: $after" >&2
  if [ -n "$save" ]; then
    cp "$csv" "$save.tmp" && mv "$save.tmp" "$save"
    echo "load average (1, 5, 15 min) before: $before, after: $after" > "${save%.csv}-load.txt"
  fi
fi
# The columns by name (quoted fields hold no commas in these rows' numbers).
python3 - "$csv" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
ours = {int(r["filter_width"]): float(r["median_ms"]) for r in rows if r["step"] == "step6-multioutput"}
def peer(step, f):  # {variant: median ms}
    return {r["variant"]: float(r["median_ms"]) for r in rows
            if r["step"] == step and int(r["filter_width"]) == f}
print("%-4s %10s %12s %12s %12s %14s %14s" % ("F", "step 6 ms", "filter2D 1t", "filter2D 2t", "sepFilter2D",
                                             "x filter2D 2t", "x fastest"))
for f in sorted(ours):
    f2d, sep = peer("opencv.filter2D", f), peer("opencv.sepFilter2D", f)
    if not f2d:
        continue
    two = f2d.get("threads=2", min(f2d.values()))
    fastest = min(list(f2d.values()) + list(sep.values()))
    print("%-4d %10.3g %12.3g %12.3g %12s %13.2fx %13.2fx" % (
        f, ours[f], f2d.get("threads=1", float("nan")), two,
        "%.3g" % min(sep.values()) if sep else "-", two / ours[f], fastest / ours[f]))
print("x: OpenCV's time over step 6's (above 1: step 6 is faster); fastest: any OpenCV call")
PY
