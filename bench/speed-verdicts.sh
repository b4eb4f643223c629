#!/usr/bin/env bash
# grade --speed's verdicts, run after run (docs/coursework.md, "Speed
# verdicts"): one submission graded RUNS times in each scenario, each run a
# whole grade with a fresh seed.
#   bench/speed-verdicts.sh TAG [RUNS] [extra grade options]
# writes docs/results/speed-verdicts-TAG.csv (or $RESULTS/...), one row a
# run (with the 1-minute load average as it starts), and prints how many runs of each scenario got each verdict. TAG names
# the device (pocl, h100, ...); extra options select it, e.g. --platform
# NVIDIA. BUILD names the build folder (default: build). Scenarios:
#   own-step1       step 1's own kernel graded for step 1 (the reference:
#                   step 1's own kernel, the first step's default)
#   own-step2       step 2's own kernel graded for step 2 (the reference:
#                   step 1's, the default)
#   step1-at-step3  step 1's own kernel for an exercise on step 1 that asks
#                   for step 3's speed (--speed-reference 3)
#   step1-at-step6  the same asking for step 6's speed (--speed-reference 6)
# SCENARIOS picks some of them, space-separated (default: all four);
# FIRST_RUN numbers the first run (and its seed), default 1, to go on with
# an earlier CSV's runs.
set -euo pipefail
cd "$(dirname "$0")/.."
tag=${1:?usage: bench/speed-verdicts.sh TAG [RUNS] [extra grade options]}
runs=${2:-20}
shift $(( $# >= 2 ? 2 : 1 ))
build=${BUILD:-build}
results=${RESULTS:-docs/results}
grade="$build/bin/grade"
[ -x "$grade" ] || { echo "speed-verdicts: $grade is missing (cmake --build $build --target grade)" >&2; exit 1; }
out="$results/speed-verdicts-$tag.csv"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The machine, as the CSV names it: cores and CPU, then (from the first
# run's report, which names the device the grader chose with the options
# given) the device and its driver.
cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)
machine="$(nproc)-core $cpu"
device="" driver=""
name_device() {  # from "Grades for STEP on DEVICE (PLATFORM), seed ..."
  [ -n "$device" ] && return
  device=$(sed -n '1s/^Grades for [^ ]* on \(.*\) ([^)]*), seed .*/\1/p' "$work/out.md")
  [ -n "$device" ] || { echo "speed-verdicts: the report does not name its device" >&2; exit 1; }
  local line
  line=$("$grade" --list-devices 2>/dev/null | grep -F "): $device [" | head -1 || true)
  driver=$(printf '%s\n' "$line" | sed -n 's/.*\], driver \([^,]*\),.*/\1/p')
  case "$(sed -n 1p "$work/out.md")" in *"(Portable Computing Language)"*) driver="PoCL $driver" ;; esac
  return 0
}
date=$(date +%Y-%m-%d)

echo "machine,device,driver,date,scenario,step,reference,run,load,verdict,kernel_ms,reference_ms,speed_ratio,speed_noise,reason" > "$out.partial"
scenario() {  # NAME STEP FOLDER [grade options]
  local name=$1 step=$2 folder=$3
  shift 3
  local reference=${1:+$2}
  local first=${FIRST_RUN:-1}
  for run in $(seq "$first" $((first + runs - 1))); do
    rm -rf "$work/class" && mkdir -p "$work/class"
    load=$(cut -d' ' -f1 /proc/loadavg)  # the machine's load as the run starts
    cp "$folder/convolve.cl" "$work/class/$folder.cl"
    "$grade" --step "$step" "$work/class" --speed --no-oclgrind --case-timeout 60 --seed "$run" \
      --report "$work/grades.csv" "$@" "${extra[@]}" > "$work/out.md" 2> "$work/err.txt" || {
      echo "speed-verdicts: $name, run $run: grade failed: $(tail -1 "$work/err.txt")" >&2
      exit 1
    }
    # The report's row (fields 3 and 9-12: verdict, kernel_ms, reference_ms,
    # speed_ratio, speed_noise); the reason (field 6) may hold commas, so the
    # numbers are taken from the end, and the reason by Python's csv.
    name_device
    row=$(sed -n 2p "$work/grades.csv")
    verdict=$(printf '%s' "$row" | cut -d, -f3)
    tail4=$(printf '%s' "$row" | rev | cut -d, -f1-4 | rev)
    reason=$(python3 -c 'import csv, sys; print(next(csv.reader([sys.argv[1]]))[5])' "$row")
    echo "\"$machine\",\"$device\",$driver,$date,$name,$step,${reference:-default},$run,$load,$verdict,$tail4,\"${reason//\"/\"\"}\"" >> "$out.partial"
    echo "speed-verdicts: $name, run $run: $verdict ($tail4)" >&2
  done
}
extra=("$@")
for name in ${SCENARIOS:-own-step1 own-step2 step1-at-step3 step1-at-step6}; do
  case $name in
    own-step1) scenario own-step1 1 step1-naive ;;
    own-step2) scenario own-step2 2 step2-constant ;;
    step1-at-step3) scenario step1-at-step3 1 step1-naive --speed-reference 3 ;;
    step1-at-step6) scenario step1-at-step6 1 step1-naive --speed-reference 6 ;;
    *) echo "speed-verdicts: no scenario '$name' (own-step1 own-step2 step1-at-step3 step1-at-step6)" >&2; exit 2 ;;
  esac
done
mv "$out.partial" "$out"

echo "Verdicts in $runs runs each ($machine, $device, $driver, $date):"
python3 - "$out" <<'EOF'
import csv, sys
from collections import Counter, OrderedDict
counts = OrderedDict()
for r in csv.DictReader(open(sys.argv[1])):
    counts.setdefault(r["scenario"], Counter())[r["verdict"]] += 1
for scenario, c in counts.items():
    print("  {:16} {}".format(scenario, ", ".join("{} {}".format(n, v) for v, n in sorted(c.items()))))
EOF
echo "Wrote $out"
