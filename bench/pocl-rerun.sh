#!/usr/bin/env bash
# Re-measures every PoCL table of docs/step6-multioutput.md,
# docs/histogram.md and docs/results.md, for a machine with nothing else
# running (the CPU tables are only as good as the machine is quiet):
#   bench/pocl-rerun.sh [device options]      (default: --device-type cpu)
# writes into docs/results/ (or $RESULTS): perf-pocl.csv (with
# perf-pocl-load.txt), blocks-pocl.csv, bank-pocl.csv, volume-pocl.csv,
# histogram-*-pocl.csv, histogram-peers-pocl.csv, and pocl-load.txt: the
# load average before and after each part. Then regenerate the pages with
# /usr/bin/python3 bench/docs.py and read the prose beside the tables again.
# Needs build/bin (./quickstart.sh build), OpenCV (libopencv-dev) and, for
# the SciPy, NumPy and OpenCV peers, python3-scipy, python3-numpy and
# python3-opencv in the Python named by PYTHON (default /usr/bin/python3).
# About 15-20 minutes on a quiet 2-core machine.
set -euo pipefail
cd "$(dirname "$0")/.."
results="${RESULTS:-docs/results}"
export RESULTS="$results" PYTHON="${PYTHON:-/usr/bin/python3}"
device=("$@")
[ ${#device[@]} -gt 0 ] || device=(--device-type cpu)
load="$results/pocl-load.txt"
note() { echo "$1: load average (1, 5, 15 min) $(cut -d' ' -f1-3 /proc/loadavg)" >> "$load"; }
mkdir -p "$results"
echo "pocl-rerun.sh on $(date -u +%F\ %H:%M) UTC, $(nproc) cores" > "$load"
note "start"
bench/results.sh pocl "${device[@]}"
note "perf (bench/results.sh)"
BLOCKS_IMAGE=1024x1024 BLOCKS_REPS=5 BLOCKS_WGS=16x16 bench/experiments.sh blocks pocl "${device[@]}"
note "blocks"
BANK_IMAGE=1024x1024 BANK_REPS=5 bench/experiments.sh bank pocl "${device[@]}"
note "bank"
VOLUME_SIZE=64 VOLUME_REPS=5 bench/experiments.sh volume pocl "${device[@]}"
note "volume"
bench/histogram.sh pocl "${device[@]}"
note "histogram"
"$PYTHON" bench/histogram_peers.py --peers numpy,opencv --reps 5 > "$results/histogram-peers-pocl.tmp.csv"
mv "$results/histogram-peers-pocl.tmp.csv" "$results/histogram-peers-pocl.csv"
note "histogram peers"
echo "pocl-rerun.sh: done; the load averages are in $load" >&2
