#!/usr/bin/env bash
# The experiments behind the lessons, each one sweep command.
#   bench/experiments.sh NAME TAG [extra sweep options]
# writes docs/results/NAME-TAG.csv (or $RESULTS/NAME-TAG.csv). TAG names the
# device (pocl, h100, ...); extra options select it, e.g. --platform NVIDIA.
# Names:
#   seed001  steps 1-4 at F = 3, 5, 7 on 600x400 with work-groups 8x8, 16x16,
#            32x32, beside the serial baseline (the course report, seed 001)
#   seed000  step 3 with work-groups 16x16, 32x8, 8x32 on 512^2, 1024^2,
#            2048^2 with the 7x7 motion blur (the final-exam report, seed 000)
#   seed004  step 4's three variants over filter widths 1..32 (the AMD
#            tutorial's sawtooth, seed 004); image $SEED004_IMAGE
#            (default 1024x1024; the H100 run uses 4096x4096)
set -euo pipefail
cd "$(dirname "$0")/.."
name="${1:?usage: bench/experiments.sh NAME TAG [sweep options]}"
tag="${2:?usage: bench/experiments.sh NAME TAG [sweep options]}"
shift 2
results="${RESULTS:-docs/results}"
mkdir -p "$results"
out="$results/$name-$tag.csv"
sweep=build/bin/sweep
case "$name" in
  seed001) exec "$sweep" --steps 1,2,3,4 --variants default --images 600x400 \
             --filters box:3,box:5,box:7 --wgs 8x8,16x16,32x32 --serial --reps 20 \
             --output "$out" "$@" ;;
  seed000) exec "$sweep" --steps 3 --images 512x512,1024x1024,2048x2048 --filters motion45 \
             --wgs 16x16,32x8,8x32 --reps 20 --output "$out" "$@" ;;
  seed004) exec "$sweep" --steps 4 --variants all --images "${SEED004_IMAGE:-1024x1024}" \
             --filters box:1..32 --wgs 16x16 --reps "${SEED004_REPS:-5}" --output "$out" "$@" ;;
  *) echo "experiments.sh: unknown experiment '$name'" >&2; exit 2 ;;
esac
