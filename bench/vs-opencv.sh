#!/usr/bin/env bash
# A step against OpenCV on the CPU, in one run: 2048x2048, box filters; the
# step at its documented defaults (an empty store) and as tuned here (the
# store of its --tune, or of build/bin/tune), then cv::filter2D with 1 and
# with 2 threads (OpenCV's own parallel_for: on a 2-core machine the second
# thread often buys nothing) and the fastest cv::sepFilter2D (box filters
# are separable). One line per width: the medians, and the faster
# filter2D's time over each of the step's; for steps 8 and 10 also
# sepFilter2D's over the tuned step's.
#   bench/vs-opencv.sh [sweep device options]      run them, print the ratios
#   bench/vs-opencv.sh --from FILE.csv             only print them, from a CSV
#                                                  this script saved
#   bench/vs-opencv.sh --save FILE.csv [options]   run, keep the CSV, and the
#                                                  load average in FILE-load.txt
# Each of the three runs VS_ROUNDS times (default 3), in turn and each in its
# own process, and every row keeps its median of the rounds
# (bench/median_of_rounds.py): on this CPU one process can run a
# configuration tens of per cent slower than the next.
# Environment: VS_STEPS (the steps, comma-separated: default 7; 8 and 10
# are the other tunable ones), VS_FILTERS (default box:3,box:5,box:7,box:15,
# box:31), VS_IMAGE (2048x2048), VS_REPS (21: this 2-core machine's
# launches spread widely), BUILD (build), TUNED_CACHE (the folder whose
# clconv/tuned.txt holds the tuned winners; default: the user's cache,
# $XDG_CACHE_HOME or ~/.cache). Widths with no stored winner run the
# defaults in the tuned row too, and the table says so.
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
  image="${VS_IMAGE:-2048x2048}" reps="${VS_REPS:-21}" filters="${VS_FILTERS:-box:3,box:5,box:7,box:15,box:31}"
  steps="${VS_STEPS:-7}"
  vs_rounds="${VS_ROUNDS:-3}"
  before="$(cut -d' ' -f1-3 /proc/loadavg)"
  echo "vs-opencv.sh: load average before: $before" >&2
  tuned_cache="${TUNED_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}}"
  [ -f "$tuned_cache/clconv/tuned.txt" ] ||
    echo "vs-opencv.sh: no $tuned_cache/clconv/tuned.txt: run the step's --tune (or build/bin/tune) first" >&2
  mkdir -p "$tmp/empty"
  threads=1
  [ "$(nproc)" -gt 1 ] && threads="1,$(nproc)"
  rounds=()
  for k in $(seq "$vs_rounds"); do
    echo "vs-opencv.sh: round $k of $vs_rounds" >&2
    XDG_CACHE_HOME="$tmp/empty" "$build/bin/sweep" --steps "$steps" --images "$image" --filters "$filters" --wgs auto \
      --reps "$reps" --no-check --output "$tmp/defaults.csv" "$@"
    XDG_CACHE_HOME="$tuned_cache" "$build/bin/sweep" --steps "$steps" --images "$image" --filters "$filters" --wgs auto \
      --reps "$reps" --no-check --output "$tmp/tuned.csv" "$@"
    # step 7's rows as variants "defaults" and "tuned"
    python3 - "$tmp/defaults.csv" "$tmp/tuned.csv" "$tmp/round$k.csv" <<'PY'
import csv, sys
out = None
for path, name in ((sys.argv[1], "defaults"), (sys.argv[2], "tuned")):
    rows = list(csv.DictReader(open(path)))
    if out is None:
        out = csv.DictWriter(open(sys.argv[3], "w", newline=""), fieldnames=list(rows[0].keys()), lineterminator="\n")
        out.writeheader()
    for r in rows:
        r["variant"] = name
        out.writerow(r)
PY
    "$build/bin/opencv-filter2d" --images "$image" --filters "$filters" --reps "$reps" \
      --threads "$threads" --no-header >> "$tmp/round$k.csv"
    rounds+=("$tmp/round$k.csv")
  done
  python3 bench/median_of_rounds.py "$csv" "${rounds[@]}"
  after="$(cut -d' ' -f1-3 /proc/loadavg)"
  echo "vs-opencv.sh: load average after: $after" >&2
  if [ -n "$save" ]; then
    cp "$csv" "$save.tmp" && mv "$save.tmp" "$save"
    echo "load average (1, 5, 15 min) before: $before, after: $after; rounds: $vs_rounds" > "${save%.csv}-load.txt"
  fi
fi
# The columns by name (quoted fields hold no commas in these rows' numbers).
python3 - "$csv" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
def peer(step, f):  # {variant: median ms}
    return {r["variant"]: float(r["median_ms"]) for r in rows
            if r["step"] == step and int(r["filter_width"]) == f}
steps = []
for r in rows:
    if not r["step"].startswith("opencv.") and r["step"] not in steps:
        steps.append(r["step"])
for step in steps:
    def ours(variant):
        return {int(r["filter_width"]): float(r["median_ms"]) for r in rows
                if r["step"] == step and r["variant"] == variant}
    defaults, tuned = ours("defaults"), ours("tuned")
    separable = step != "step7-tuned"
    if len(steps) > 1 or separable:
        print(step)
    print("%-4s %11s %10s %12s %12s %12s %12s %12s" % ("F", "defaults ms", "tuned ms", "filter2D 1t", "filter2D 2t",
                                                      "sepFilter2D", "x defaults", "x tuned") +
          (" %14s" % "x tuned (sep)" if separable else ""))
    for f in sorted(defaults):
        f2d, sep = peer("opencv.filter2D", f), peer("opencv.sepFilter2D", f)
        if not f2d:
            continue
        best = min(f2d.values())
        t = tuned.get(f, float("nan"))
        line = "%-4d %11.3g %10.3g %12.3g %12s %12s %11.2fx %11.2fx" % (
            f, defaults[f], t, f2d.get("threads=1", float("nan")),
            "%.3g" % f2d["threads=2"] if "threads=2" in f2d else "-",
            "%.3g" % min(sep.values()) if sep else "-", best / defaults[f], best / t)
        if separable:
            line += " %13s" % ("%.2fx" % (min(sep.values()) / t) if sep else "-")
        print(line)
print("x: the faster filter2D's time over the step's (above 1: the step is faster)" +
      ("; x tuned (sep): the fastest sepFilter2D's over the tuned step's" if any(s != "step7-tuned" for s in steps) else ""))
PY
