#!/usr/bin/env bash
# What PoCL's kernel compiler did to one step's kernel on the CPU: builds it
# afresh (no kernel cache) with LLVM's optimization remarks on, runs it once
# on a small image, and counts the remarks that matter for the lessons:
#   tools/pocl-vectorizer.sh 4 --variant fixed
#   tools/pocl-vectorizer.sh 3 --filter box:15
# Options after the step go to the step's executable (--variant, --filter,
# --wg, --kernel FILE, --set ...). "vectorized loop (vectorization width: 8)"
# is the work-group loop running 8 work-items per vector instruction;
# "loop not vectorized" lines are loops PoCL left scalar; "completely
# unrolled" lines are loops with a known trip count (a compile-time F).
# BUILD (default build) names the build folder. --raw prints every remark.
set -euo pipefail
cd "$(dirname "$0")/.."
usage="usage: tools/pocl-vectorizer.sh STEP [--raw] [step options]"
[ $# -ge 1 ] || { echo "$usage" >&2; exit 2; }
n="$1"
shift
raw=0
if [ "${1:-}" = "--raw" ]; then raw=1; shift; fi
build="${BUILD:-build}"
# The step's executable is named after its folder, the one with a convolve.cl
# (step6-volume/ is not a step; step 6's folder also builds step6-bank).
dir=$(ls -d step"$n"-*/convolve.cl 2>/dev/null | head -n 1 || true)
dir="${dir%/convolve.cl}"
exe="$build/bin/$(basename "${dir:-none}")"
[ -x "$exe" ] || exe=""
[ -n "$exe" ] || { echo "pocl-vectorizer.sh: no step $n in $build/bin (build first; $usage)" >&2; exit 2; }
log=$(mktemp)
trap 'rm -f "$log"' EXIT
# PoCL prints its remarks while it builds, to stdout, without line breaks.
POCL_KERNEL_CACHE=0 POCL_VECTORIZER_REMARKS=1 CLCONV_PLATFORM="${CLCONV_PLATFORM:-Portable}" \
  "$exe" --image synthetic:64x64 --reps 1 "$@" > "$log" 2>&1 || {
  sed 's/<unknown>:0:0: /\n/g' "$log" | grep -v '^$' | tail -n 5 >&2
  echo "pocl-vectorizer.sh: $exe failed" >&2
  exit 1
}
remarks=$(sed 's/<unknown>:0:0: /\n/g' "$log" | grep -v '^$' || true)
[ -n "$remarks" ] || { echo "pocl-vectorizer.sh: no remarks: is the device PoCL (CLCONV_PLATFORM)?" >&2; exit 1; }
if ((raw)); then echo "$remarks"; exit 0; fi
echo "$(basename "$exe") $*: what PoCL's compiler reported"
echo "$remarks" | grep -oE 'vectorized loop \(vectorization width: [0-9]+, interleaved count: [0-9]+\)' |
  sort | uniq -c || echo "      0 vectorized loops"
echo "$remarks" | grep -oE '^loop not vectorized: .*' | sort | uniq -c || true
echo "$remarks" | grep -oE 'completely unrolled loop with [0-9]+ iterations' | sort | uniq -c || true
echo "$remarks" | grep -oE '^(Stores|List) SLP vectorized' | sort | uniq -c || true
