#!/usr/bin/env bash
# Runs one sweep ROUNDS times, each in its own process, and merges the runs
# into OUT.csv, keeping each row's median of the rounds
# (bench/median_of_rounds.py): on a CPU one process can run slower than the
# next (docs/results.md, "How the CPU is measured").
#   bench/sweep-rounds.sh ROUNDS OUT.csv [sweep options, without --output]
# BUILD (default build) names the build folder.
set -euo pipefail
usage="usage: bench/sweep-rounds.sh ROUNDS OUT.csv [sweep options]"
rounds="${1:?$usage}"
out="${2:?$usage}"
shift 2
here="$(dirname "$0")"
files=()
trap 'rm -f "${files[@]}"' EXIT
for k in $(seq "$rounds"); do
  files+=("$out.round$k.csv")
  "${BUILD:-build}/bin/sweep" "$@" --output "$out.round$k.csv"
done
python3 "$here/median_of_rounds.py" "$out" "${files[@]}"
