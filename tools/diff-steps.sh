#!/usr/bin/env bash
# Prints what step N changed against step N-1: every source file of the two
# folders (the kernel, then the launcher, then the rest: .cl, .cpp, .hpp),
# a file only the new step has diffed against nothing, one it no longer has
# named with its size. A step's candidates/
# folder (kernels the tuner searches beside the lesson's: steps 8 and 10)
# is named, with its size, and shown only with --candidates:
#   tools/diff-steps.sh 3        # step2-constant -> step3-local
#   tools/diff-steps.sh 5 -U8    # more context
#   tools/diff-steps.sh 1        # minimal/ -> step1-naive: the host program
#                                # against the launcher the harness runs
#   tools/diff-steps.sh 8 --candidates   # also the tuner's candidate kernels
# Extra arguments go to diff (for example --color=always, or -U10).
set -euo pipefail
cd "$(dirname "$0")/.."
usage="usage: tools/diff-steps.sh N [--candidates] [diff options]   (N: a step number, 1 for step 1 against minimal/)"
[ $# -ge 1 ] || { echo "$usage" >&2; exit 2; }
n="$1"
shift
candidates=0
args=()
for a in "$@"; do
  if [ "$a" = --candidates ]; then candidates=1; else args+=("$a"); fi
done
set -- ${args[@]+"${args[@]}"}
[[ "$n" =~ ^[0-9]+$ ]] || { echo "diff-steps.sh: '$n' is not a step number; $usage" >&2; exit 2; }
step_dir() {  # the folder of step $1 (the one with a convolve.cl, not step6-bank/ or step6-volume/), or nothing
  local d
  for d in step"$1"-*/; do [ -f "${d}convolve.cl" ] && { echo "$d"; return 0; }; done
  return 0
}
# A step that changes the algorithm does not edit the kernel before it: its
# kernel is diffed against the closest earlier one, and the script says so
# first (on stderr, so that the diff itself stays a patch).
base=$((n - 1))
if [ "$n" = 1 ]; then
  # Step 1 has no step before it: its launcher against minimal/, the whole
  # host program without the harness, which builds the same kernel file.
  echo "diff-steps.sh: step 1 against minimal/: the same kernel (minimal.cpp reads step1-naive/convolve.cl);" \
       "the whole host program against the launcher, which leaves the device, the run loop and the check to common/" >&2
  status=0
  diff -u "$@" minimal/minimal.cpp step1-naive/launcher.cpp || { rc=$?; [ $rc -eq 1 ] || status=$rc; }
  exit "$status"
fi
case "$n" in
  8) base=6
     echo "diff-steps.sh: step 8 changes the algorithm (the filter as separable terms, two 1D passes);" \
          "against step 6, whose register-blocked rows its passes reuse" >&2 ;;
  9) base=1
     echo "diff-steps.sh: step 9 changes the algorithm (correlation through the FFT, VkFFT's kernels);" \
          "its own kernel, the spectra's product, one work-item per element, against step 1's" >&2 ;;
  10) echo "diff-steps.sh: step 10 keeps step 9's algorithm and tiles it (overlap-save, its own transform" \
           "in place of VkFFT's): most of its kernel is new" >&2 ;;
esac
new=$(step_dir "$n")
old=$(step_dir "$base")
steps=$(ls -d step[0-9]*-*/ | tr -d / | xargs)
[ -n "$new" ] || { echo "diff-steps.sh: there is no step $n (steps: $steps)" >&2; exit 2; }
[ -n "$old" ] || { echo "diff-steps.sh: step $n has no step $base before it (steps: $steps)" >&2; exit 2; }
# The source files at the top of a folder: convolve.cl, launcher.cpp, then
# the others by name.
sources() {
  local d="$1" f
  for f in convolve.cl launcher.cpp; do [ -f "$d$f" ] && echo "$f"; done
  for f in "$d"*.cl "$d"*.cpp "$d"*.hpp; do
    [ -f "$f" ] || continue
    f=${f#"$d"}
    [ "$f" = convolve.cl ] || [ "$f" = launcher.cpp ] || echo "$f"
  done | sort
}
files=$( (sources "$old"; sources "$new") | awk '!seen[$0]++')
status=0
gone=()
for file in $files; do
  a="$old$file"; b="$new$file"
  # A file the new step no longer has is named, not printed line by line.
  if [ ! -f "$b" ]; then gone+=("$a ($(wc -l < "$a") lines)"); continue; fi
  [ -f "$a" ] || a=/dev/null
  # diff exits 1 when the files differ, which is the point here.
  diff -u "$@" --label "$old$file" --label "$new$file" "$a" "$b" || { rc=$?; [ $rc -eq 1 ] || status=$rc; }
done
if [ ${#gone[@]} -gt 0 ]; then
  echo "diff-steps.sh: not in $new: ${gone[*]}" >&2
fi
if [ -d "${new}candidates" ]; then
  cand=$(find "${new}candidates" -maxdepth 1 -type f \( -name '*.cl' -o -name '*.cpp' -o -name '*.hpp' \) | sort)
  if [ "$candidates" = 1 ]; then
    for f in $cand; do
      diff -u "$@" --label /dev/null --label "$f" /dev/null "$f" || { rc=$?; [ $rc -eq 1 ] || status=$rc; }
    done
  else
    count=$(echo "$cand" | wc -w)
    lines=$(cat $cand | wc -l)
    echo "diff-steps.sh: ${new}candidates/ holds the tuner's candidate kernels beside the lesson's ($count files," \
         "$lines lines; not the lesson): tools/diff-steps.sh $n --candidates shows them" >&2
  fi
fi
exit "$status"
