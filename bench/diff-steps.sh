#!/usr/bin/env bash
# Prints what step N changed in the kernel, against step N-1:
#   bench/diff-steps.sh 3        # step2-constant -> step3-local
# Extra arguments go to diff (for example --color=always, or -U10).
set -euo pipefail
cd "$(dirname "$0")/.."
n="${1:?usage: bench/diff-steps.sh N (2..7)}"
shift
new=$(ls -d step"$n"-*/ 2>/dev/null | head -n 1)
old=$(ls -d step"$((n - 1))"-*/ 2>/dev/null | head -n 1)
[ -n "$new" ] && [ -n "$old" ] || { echo "diff-steps.sh: no step $n or $((n - 1))" >&2; exit 2; }
# diff exits 1 when the files differ, which is the point here.
diff -u "$@" "${old}convolve.cl" "${new}convolve.cl" || [ $? -eq 1 ]
