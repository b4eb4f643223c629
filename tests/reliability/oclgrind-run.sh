#!/usr/bin/env bash
# Runs one program under Oclgrind with every check on and turns Oclgrind's
# reports into an exit status (Oclgrind itself returns the program's).
#   oclgrind-run.sh [--preload LIB] -- PROGRAM [ARGS...]
#       passes when PROGRAM exits 0 and Oclgrind reported nothing at all;
#   oclgrind-run.sh [--preload LIB] --expect REGEX [--expect REGEX]... -- PROGRAM [ARGS...]
#       passes when every REGEX matches Oclgrind's reports (a deliberately
#       broken kernel: its own exit status does not matter).
#   oclgrind-run.sh [--preload LIB] --local-mem-size BYTES -- PROGRAM [ARGS...]
#       as the first form on a simulated device with BYTES of local memory
#       instead of Oclgrind's 32 KiB (step 10's tiles of 64 and 128 points
#       need 37 and 145 KiB);
#   oclgrind-run.sh [--preload LIB] --library-kernel NAME -- PROGRAM [ARGS...]
#       as the first form for a program that also runs a library's kernel
#       NAME (step 9's VkFFT_main): its reports are left out, and only
#       out-of-bounds accesses and API misuse are checked, since NAME's
#       in-place transforms report tens of thousands of races and what
#       Oclgrind takes for uninitialized values in NAME's output would be
#       reported in every kernel after it (docs/reliability.md).
# Out-of-bounds accesses are always checked; the options add data races,
# uninitialized values and OpenCL API misuse. OCLGRIND overrides the binary.
#
# Two settings keep the reports about the kernels (docs/reliability.md):
#  --preload LIB  the build's liboclgrind_host_writes.so, put in front of
#                 Oclgrind's runtime: Oclgrind 21.10 loses track of buffer
#                 bytes the host initialized with a fill or a rectangular write.
#  --build-options -cl-opt-disable  Oclgrind checks LLVM IR; at -O0
#                 it mirrors the kernel's own loads and stores, while the
#                 optimizer may split a float4 store into a store of `undef`
#                 and four lane stores, which reads as an uninitialized write.
set -uo pipefail
expect=()
preload=""
ignore=""
checks=(--data-races --uninitialized)
device=()
while (($#)); do
  case "$1" in
    --expect) expect+=("$2"); shift 2 ;;
    --preload) preload=$2; shift 2 ;;
    --local-mem-size) device=(--local-mem-size "$2"); shift 2 ;;
    --library-kernel) ignore=$2; checks=(); shift 2 ;;
    --) shift; break ;;
    *) break ;;
  esac
done
(($#)) || { echo "usage: $0 [--preload LIB] [--expect REGEX]... -- PROGRAM [ARGS...]" >&2; exit 2; }
if [ -n "$preload" ] && [ ! -f "$preload" ]; then
  echo "oclgrind-run: no such library: $preload" >&2
  exit 2
fi

log=$(mktemp "${TMPDIR:-/tmp}/oclgrind-XXXXXX")
trap 'rm -f "$log"' EXIT
# Under the wrapper Oclgrind is the only platform; naming it makes sure.
export CLCONV_PLATFORM=Oclgrind
# A clean run stops reporting after 20; a broken kernel's reports of one
# kind (uninitialized values, found first) must not hide the next (races,
# found at the barrier or the end of the group).
max_errors=20
((${#expect[@]})) && max_errors=100000
[ -n "$ignore" ] && max_errors=100000  # the library's reports must not hide ours
# The wrapper puts its runtime first in LD_PRELOAD; the shell it starts puts
# the preload library in front of it, then becomes the program.
CLCONV_PRELOAD=$preload "${OCLGRIND:-oclgrind}" "${checks[@]}" "${device[@]}" --check-api \
  --build-options -cl-opt-disable --max-errors "$max_errors" --log "$log" \
  sh -c 'LD_PRELOAD="${CLCONV_PRELOAD:+$CLCONV_PRELOAD:}$LD_PRELOAD" exec "$@"' sh "$@"
status=$?

if ((${#expect[@]})); then
  # Each expected report, the first of its kind, in full (reports are
  # paragraphs); then how many reports of each kind there were.
  missing=0
  echo "oclgrind-run: program exit status $status; the first report of each expected kind:" >&2
  for regex in "${expect[@]}"; do
    if grep -Eq -- "$regex" "$log"; then
      awk -v re="$regex" 'BEGIN { RS = ""; ORS = "\n\n" } $0 ~ re { print; exit }' "$log" >&2
    else
      echo "oclgrind-run: expected a report matching '$regex'" >&2
      missing=1
    fi
  done
  echo "oclgrind-run: reports by kind:" >&2
  grep -E '^[A-Z][A-Za-z-]+ ' "$log" | sed -E 's/ (address|at) 0x[0-9a-f]+.*//' | sort | uniq -c >&2
  exit "$missing"
fi
if [ -n "$ignore" ] && [ -s "$log" ]; then
  ignored=$(awk -v k="Kernel: $ignore" 'BEGIN { RS = "" } index($0, k) { n++ } END { print n + 0 }' "$log")
  awk -v k="Kernel: $ignore" 'BEGIN { RS = ""; ORS = "\n\n" } !index($0, k)' "$log" > "$log.kept"
  mv "$log.kept" "$log"
  echo "oclgrind-run: left out $ignored report(s) about kernel $ignore" >&2
fi
if [ -s "$log" ]; then
  echo "oclgrind-run: Oclgrind reported problems (program exit status $status):" >&2
  cat "$log" >&2
  exit 1
fi
exit "$status"
