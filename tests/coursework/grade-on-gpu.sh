#!/usr/bin/env bash
# The grader on a GPU (docs/coursework.md, "On a GPU"): a small class of
# step 1 (the step's own kernel, a wrong one, one that never returns, one
# that does not build, one that writes far past its output) graded inside
# the sandbox and again with --no-sandbox, on the first GPU OpenCL lists.
# Each submission must get its verdict in both runs, the same in both; the
# two runs' times are printed. Exit 77 (ctest: skipped) where there is no
# GPU. Usage: tests/coursework/grade-on-gpu.sh BIN_DIR [SCRATCH]
# (GRADE_DEVICE_TYPE=cpu runs the same on a CPU, to try the script.)
set -uo pipefail
bin="${1:?usage: grade-on-gpu.sh BIN_DIR [SCRATCH]}"
root="$(cd "$(dirname "$0")/../.." && pwd)"
scratch="${2:-$(mktemp -d)}"
type="${GRADE_DEVICE_TYPE:-gpu}"
if ! "$bin/tour" --list-devices 2>/dev/null | grep -q "\[$type\]"; then
  echo "grade-on-gpu: no $type OpenCL device here: skipped"
  exit 77
fi
export CLCONV_DEVICE_TYPE=$type
class="$scratch/class"
rm -rf "$class" && mkdir -p "$class"
good="$root/step1-naive/convolve.cl"
cp "$good" "$class/own.cl"
sed 's/sum += filter\[f + c\] \* input\[i + c\];/sum += filter[f + c] * input[i + c + 1];/' "$good" > "$class/shifted.cl"
sed 's/  float sum = 0.0f;/  float sum = 0.0f;\n  while (out_width > 0) sum += 1.0f;/' "$good" > "$class/hangs.cl"
sed 's/  float sum = 0.0f;/  float sum = 0.0f\n/' "$good" > "$class/typo.cl"
sed 's/  output\[y \* out_width + x\] = sum;/  output[y * out_width + x + (1 << 28)] = sum;/' "$good" > "$class/far-write.cl"
status=0
declare -A verdicts
for mode in sandbox no-sandbox; do
  flags=()
  [ "$mode" = no-sandbox ] && flags=(--no-sandbox)
  start=$(date +%s%N)
  "$bin/grade" --step 1 "$class" --report "$scratch/$mode.csv" --jobs 2 --no-oclgrind ${flags[@]+"${flags[@]}"} \
    > "$scratch/$mode.out" 2> "$scratch/$mode.err"
  rc=$?
  end=$(date +%s%N)
  echo "grade-on-gpu: $mode: exit $rc in $(( (end - start) / 1000000 )) ms"
  [ $rc -eq 0 ] || { echo "grade-on-gpu: $mode: grade failed:"; tail -5 "$scratch/$mode.err"; status=1; continue; }
  while IFS=, read -r student _step verdict _rest; do
    [ "$student" = student ] && continue
    echo "  $mode: $student: $verdict"
    if [ -n "${verdicts[$student]:-}" ] && [ "${verdicts[$student]}" != "$verdict" ]; then
      echo "grade-on-gpu: $student: $verdict here, ${verdicts[$student]} in the sandbox"; status=1
    fi
    verdicts[$student]=$verdict
  done < "$scratch/$mode.csv"
done
for want in own:pass shifted:wrong hangs:timeout typo:build-error; do
  student=${want%%:*} verdict=${want#*:}
  [ "${verdicts[$student]:-}" = "$verdict" ] || { echo "grade-on-gpu: $student: ${verdicts[$student]:-none}, not $verdict"; status=1; }
done
# A write far past the output: the GPU's driver may report it (crash, wrong)
# or not; it must not pass.
[ "${verdicts[far-write]:-pass}" != pass ] || { echo "grade-on-gpu: far-write passed"; status=1; }
echo "grade-on-gpu: device: $(grep -o 'on [^,]*' "$scratch/sandbox.out" | head -1)"
[ $status -eq 0 ] && echo "grade-on-gpu: ok"
exit $status
