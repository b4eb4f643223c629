#!/usr/bin/env bash
# Step 7 on one device (docs/step7-tuned.md), three measurements in one run:
#   steps567-TAG.csv     steps 5, 6 and 7 at their defaults (an empty store,
#                        so step 7 runs its documented defaults)
#   tuned-TAG.csv        every configuration the tuner timed, and the winners
#                        it stored: tuned-step7-TAG.txt
#   cross-TAG.csv        with CROSS=FILE (another device's tuned-step7-*.txt):
#                        that device's winner at each width, run here
# Usage: bench/tune-steps.sh TAG IMAGE KIND WIDTHS BUDGET [device options]
#   bench/tune-steps.sh pocl 2048x2048 box 3,5,7,15,31 60
#   bench/tune-steps.sh h100 8192x8192 random 3,5,7,15,31,63 100 --platform NVIDIA
# KIND: box or random filters; BUDGET: the tuner's seconds per width.
# RESULTS (default docs/results) is where the files go; REPS (default 10);
# NO_CHECK=1 skips the sweeps' comparison with the serial reference (on a
# GPU machine the reference of an 8192x8192 image takes minutes per filter;
# the tuner checks every configuration on a small problem either way).
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -ge 5 ] || { echo "usage: bench/tune-steps.sh TAG IMAGE KIND WIDTHS BUDGET [device options]" >&2; exit 2; }
tag=$1 image=$2 kind=$3 widths=$4 budget=$5
shift 5
out="${RESULTS:-docs/results}"
reps="${REPS:-10}"
check=()
[ "${NO_CHECK:-0}" = 1 ] && check=(--no-check)
filters=$(echo "$widths" | tr ',' '\n' | sed "s/^/$kind:/" | paste -sd,)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/empty" "$work/tuned"

echo "tune-steps: steps 5, 6, 7 at their defaults" >&2
XDG_CACHE_HOME="$work/empty" build/bin/sweep --steps 5,6,7 --images "$image" --filters "$filters" \
  --wgs auto --reps "$reps" "${check[@]}" --output "$out/steps567-$tag.csv" "$@"

echo "tune-steps: the tuner, $budget s per width" >&2
XDG_CACHE_HOME="$work/tuned" build/bin/step7-tuned --tune --image "synthetic:$image" --filter-widths "$widths" \
  --budget "$budget" --reps "$reps" --output "$out/tuned-$tag.csv" "$@"
{
  echo "# step 7's winners, as lines of the tuner's store (step, device, driver, problem, configuration, median ms, the defaults' median ms, the kernels' fingerprint): bench/tune-steps.sh $tag $image $kind $widths $budget"
  cat "$work/tuned/clconv/tuned.txt"
} > "$out/tuned-step7-$tag.txt"

if [ -n "${CROSS:-}" ]; then
  echo "tune-steps: the winners of $CROSS, run here" >&2
  first=1
  grep -v '^#' "$CROSS" | while IFS=$'\t' read -r _step _device _driver problem config _ms _default_ms; do
    width=${problem#F=}
    case ",$widths," in *",$width,"*) ;; *) continue ;; esac
    sets=() wg=""
    for item in $config; do
      case "$item" in
        wg=*) wg=${item#wg=} ;;
        *) sets+=(--set "$item") ;;
      esac
    done
    XDG_CACHE_HOME="$work/empty" build/bin/sweep --steps 7 --images "$image" --filters "$kind:$width" \
      --wgs "$wg" "${sets[@]}" --reps "$reps" "${check[@]}" --output "$work/cross-$width.csv" "$@"
    if [ "$first" = 1 ]; then cat "$work/cross-$width.csv"; first=0; else tail -n +2 "$work/cross-$width.csv"; fi
  done > "$out/cross-$tag.csv"
fi
