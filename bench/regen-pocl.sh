#!/usr/bin/env bash
# Regenerates every PoCL table the pages show, on this machine, in one go,
# then the pages themselves:
#   bench/regen-pocl.sh            (from anywhere; build first: ./quickstart.sh build)
# Runs the tour (every variant), steps1to4, wg-shapes, unroll-widths, vector, blocks,
# blocks2048 (step 6's CPU blocks at 2048x2048), direct-cpu, unroll-cpu,
# pocl-affinity,
# bank, volume, the results page's same-run comparison (bench/results.sh,
# with OpenCV when it was built), step 7 against OpenCV at its defaults and
# tuned (bench/vs-opencv.sh), steps 7 to 10 against the filter width beside
# OpenCV (bench/crossover.sh), the histogram lesson and its CPU peers (NumPy,
# OpenCV: python3-numpy, python3-opencv), each writing its
# docs/results/*-pocl.csv, with the load average before and after each part
# in docs/results/pocl-load.txt; then writes docs/results/device-pocl.txt
# (the CPU, PoCL's version, the date) and runs docgen/docs.py, which
# rewrites every generated table and every figure quoted in the prose from
# the new CSVs.
# Step 7's tuned rows (the tour, the results run, vs-opencv, the crossover)
# run the winners in the user's cache (direct-cpu and unroll-cpu run its
# defaults: bench/experiments.sh says why): run bench/tune-steps.sh pocl
# first and copy the lines of its tuned-step7-pocl.txt into clconv/tuned.txt there (docs/results.md,
# "Regenerating").
# Finally it checks that every *-pocl.csv names one device and one date (the
# library peers' rows name the CPU itself and are left out of that check, and
# so is vs-opencv-pocl.csv, a record kept from before the renumbering).
#
# Takes about 30 minutes on a quiet 2-core machine (AMD's tutorial width sweep
# and the results run are two thirds of it). Run it on a quiet machine: the
# tables compare within one run, and other load moves CPU timings by tens of
# percent. PARTS picks some parts (names as below); RESULTS (default
# docs/results) and BUILD (default build) move the output and the build.
set -euo pipefail
cd "$(dirname "$0")/.."
results="${RESULTS:-docs/results}"
build="${BUILD:-build}"
export RESULTS="$results" BUILD="$build"
[ -x "$build/bin/tour" ] || { echo "regen-pocl.sh: $build/bin/tour not built (./quickstart.sh build)" >&2; exit 2; }
# PoCL only: a GPU driver on this machine must not take over any part.
export CLCONV_PLATFORM="${CLCONV_PLATFORM:-Portable Computing Language}"
device=$("$build/bin/tour" --list-devices | grep -m 1 "device 0" || true)
case "$device" in
  *"[cpu]"*) ;;
  *) echo "regen-pocl.sh: no PoCL CPU device ($CLCONV_PLATFORM): $device" >&2; exit 1 ;;
esac
mkdir -p "$results"
load="$results/pocl-load.txt"
# A full run starts the record afresh; a run of some PARTS adds its own lines.
header="regen-pocl.sh on $(date -u +%F\ %H:%M) UTC, $(nproc) cores"
if [ -n "${PARTS:-}" ]; then echo "$header, parts: $PARTS" >> "$load"; else echo "$header" > "$load"; fi
note() { echo "$1: load average (1, 5, 15 min) $(cut -d' ' -f1-3 /proc/loadavg)" >> "$load"; }
note "start"
all="tour steps1to4 wg-shapes unroll-widths vector blocks blocks2048 direct-cpu unroll-cpu pocl-affinity bank volume perf vs-opencv crossover histogram histogram-peers"
for part in ${PARTS:-$all}; do
  start=$SECONDS
  echo "== regen-pocl: $part" >&2
  case "$part" in
    tour)
      tmp=$(mktemp)
      "$build/bin/tour" --all-variants --csv > "$tmp"
      mv "$tmp" "$results/tour-pocl.csv" ;;
    steps1to4|wg-shapes|unroll-widths|vector)
      bench/experiments.sh "$part" pocl ;;
    blocks)
      BLOCKS_IMAGE=1024x1024 BLOCKS_REPS=5 BLOCKS_WGS=16x16 bench/experiments.sh blocks pocl ;;
    blocks2048)  # three rounds, each its own process, each row's median kept
      bench/sweep-rounds.sh 3 "$results/blocks2048-pocl.csv" --steps 6 --images 2048x2048 \
        --filters box:3,box:5,box:7,box:15,box:31 --wgs auto --reps 15 --no-check --set block=16x2,16x4,8x4,16x8 ;;
    direct-cpu|unroll-cpu|pocl-affinity)
      bench/experiments.sh "$part" pocl ;;
    bank)
      BANK_IMAGE=1024x1024 BANK_REPS=5 bench/experiments.sh bank pocl ;;
    volume)
      VOLUME_SIZE=64 VOLUME_REPS=5 bench/experiments.sh volume pocl ;;
    perf)
      bench/results.sh pocl ;;
    crossover)
      CROSSOVER_WIDTHS="3 7 15 31 63" CROSSOVER_FULL_RANK_WIDTHS="3 7 15 31" CROSSOVER_REPS=3 CROSSOVER_ROUNDS=3 \
        bench/crossover.sh pocl 2048x2048
      if [ -x "$build/bin/opencv-filter2d" ]; then
        "$build/bin/opencv-filter2d" --images 2048x2048 --reps 3 \
          --filters random:3,random:7,random:15,random:31,random:63,box:3,box:7,box:15,box:31,box:63 \
          > "$results/opencv-crossover-pocl.tmp.csv"
        mv "$results/opencv-crossover-pocl.tmp.csv" "$results/opencv-crossover-pocl.csv"
      fi ;;
    vs-opencv)
      bench/vs-opencv.sh --save "$results/vs-opencv-step7-pocl.csv" ;;
    histogram)
      BUILD="$build/bin" bench/histogram.sh pocl ;;
    histogram-peers)
      /usr/bin/python3 bench/histogram_peers.py --peers numpy,opencv --reps 5 > "$results/histogram-peers-pocl.tmp.csv"
      mv "$results/histogram-peers-pocl.tmp.csv" "$results/histogram-peers-pocl.csv" ;;
    *) echo "regen-pocl.sh: unknown part '$part' ($all)" >&2; exit 2 ;;
  esac
  echo "== regen-pocl: $part took $((SECONDS - start)) s" >&2
  note "$part"
done

{
  echo "== $(date -u +%F) =="
  grep -m 1 "model name" /proc/cpuinfo || true
  echo "cores: $(nproc)"
  "$build/bin/tour" --list-devices
} > "$results/device-pocl.txt"

# docs.py rewrites every page first, then fails if a figure is typed into
# the prose or a claim marker no longer holds with the new numbers: that
# prose needs rewording, after the check below has run.
prose=0
/usr/bin/python3 docgen/docs.py || prose=$?

# One machine, one date: every PoCL table the pages show must say the same.
python3 - "$results" <<'EOF'
import csv, glob, os, sys
seen = {}
# vs-opencv-pocl.csv is kept as measured (2026-11-25): step 6 against OpenCV
# from before the renumbering, when step 6 was the kernel step 7 runs now.
kept = {"vs-opencv-pocl.csv"}
for path in sorted(glob.glob(os.path.join(sys.argv[1], "*-pocl.csv"))):
    if os.path.basename(path) in kept:
        continue
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            if row.get("device") and row.get("date") and not row["step"].startswith(("opencv", "torch", "scipy")) and row["step"] != "peer":
                seen.setdefault((row["device"], row["date"]), set()).add(os.path.basename(path))
if len(seen) != 1:
    for (device, date), files in sorted(seen.items()):
        print("regen-pocl.sh: {} on {}: {}".format(device, date, ", ".join(sorted(files))), file=sys.stderr)
    sys.exit("regen-pocl.sh: the PoCL CSVs come from more than one device or date (run at midnight? run again)")
(device, date), = seen
print("regen-pocl.sh: every PoCL table from {}, {}".format(device, date))
EOF
if [ "$prose" -ne 0 ]; then
  echo "regen-pocl.sh: the tables are regenerated, but docgen/docs.py found prose the new numbers contradict (above): reword it" >&2
  exit "$prose"
fi
