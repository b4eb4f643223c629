#!/usr/bin/env bash
# The crossover experiment (docs/step8-separable.md, docs/step9-fft.md,
# docs/results.md): time against filter width for step 7 (the tuned direct
# sum: the stored winner of step7-tuned --tune where there is one, else its
# defaults),
# step 8 (rank 1: box; full rank: random) as the lesson's passes
# (--method passes) and as a plain run takes it (--method auto: the stored
# winner of step8-separable --tune where there is one, else its defaults,
# the passes), step 9 (FFT, the product apart and inside VkFFT's transform)
# and step 10 (the FFT in tiles, its tile and layout from --tile auto and
# --layout auto: the stored winner or its defaults)
# on one device. Results are not checked against the serial reference here
# (--no-check: at 8192x8192 and F = 63 it would take the host an hour); the
# conformance suite checks the same kernels.
#   bench/crossover.sh TAG IMAGE [device options]
#   bench/crossover.sh h200 8192x8192 --platform NVIDIA
#   CROSSOVER_WIDTHS="3 7 15 31 63" CROSSOVER_FULL_RANK_WIDTHS="3 7 15 31" \
#     CROSSOVER_REPS=3 bench/crossover.sh pocl 2048x2048
# Writes docs/results/crossover-TAG.csv (or $RESULTS/crossover-TAG.csv);
# CROSSOVER_KEEP=1 keeps the parts' CSVs (.crossover-TAG-PART.csv) beside it.
# CROSSOVER_ROUNDS=N (default 1) runs each part's sweep N times, each in its
# own process, and keeps each row's median of the rounds
# (bench/sweep-rounds.sh): on a CPU one process can run slower than the
# next (docs/results.md, "How the CPU is measured").
set -euo pipefail
cd "$(dirname "$0")/.."
tag="${1:?usage: bench/crossover.sh TAG IMAGE [device options]}"
image="${2:?usage: bench/crossover.sh TAG IMAGE [device options]}"
shift 2
out="${RESULTS:-docs/results}"
widths="${CROSSOVER_WIDTHS:-3 5 7 9 11 15 21 31 45 63}"
full_widths="${CROSSOVER_FULL_RANK_WIDTHS:-$widths}"  # step 8 with full-rank filters
reps="${CROSSOVER_REPS:-10}"
list() { local kind=$1 f s=""; for f in ${2:-$widths}; do s+="${s:+,}$kind:$f"; done; echo "$s"; }
tmp="$out/.crossover-$tag"
# CROSSOVER_PARTS runs some of the four (with CROSSOVER_KEEP=1 the parts of an
# earlier run are merged too); every step runs its default work-group (--wgs auto).
parts="${CROSSOVER_PARTS:-direct fft separable tiled}"
rounds="${CROSSOVER_ROUNDS:-1}"
sweep() { bench/sweep-rounds.sh "$rounds" "$@"; }  # sweep OUT.csv [sweep options]
for part in $parts; do
  case "$part" in
    direct) sweep "$tmp-direct.csv" --steps 7 --images "$image" --filters "$(list random)" --reps "$reps" \
              --wgs auto --no-check "$@" ;;
    fft) sweep "$tmp-fft.csv" --steps 9 --images "$image" --filters "$(list random)" --reps "$reps" \
           --wgs auto --set product=separate,fused --no-check "$@" ;;
    separable) sweep "$tmp-separable.csv" --steps 8 --set method=passes,auto --images "$image" \
                 --filters "$(list box),$(list random "$full_widths")" --reps "$reps" --wgs auto \
                 --no-check "$@" ;;
    tiled) sweep "$tmp-tiled.csv" --steps 10 --images "$image" --filters "$(list random)" --reps "$reps" \
             --wgs auto --no-check "$@" ;;
    *) echo "crossover.sh: unknown part '$part'" >&2; exit 2 ;;
  esac
done
first=1
for part in direct fft separable tiled; do
  [ -f "$tmp-$part.csv" ] || continue
  if [ $first = 1 ]; then cat "$tmp-$part.csv"; first=0; else tail -n +2 "$tmp-$part.csv"; fi
done > "$out/crossover-$tag.csv"
[ -n "${CROSSOVER_KEEP:-}" ] || rm -f "$tmp-direct.csv" "$tmp-fft.csv" "$tmp-separable.csv" "$tmp-tiled.csv"
echo "crossover: wrote $out/crossover-$tag.csv" >&2
