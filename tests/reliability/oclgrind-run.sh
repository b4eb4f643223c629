#!/usr/bin/env bash
# Runs one program under Oclgrind with every check on and turns Oclgrind's
# reports into an exit status (Oclgrind itself returns the program's).
#   oclgrind-run.sh -- PROGRAM [ARGS...]
#       passes when PROGRAM exits 0 and Oclgrind reported nothing at all;
#   oclgrind-run.sh --expect REGEX [--expect REGEX]... -- PROGRAM [ARGS...]
#       passes when every REGEX matches Oclgrind's reports (a deliberately
#       broken kernel: its own exit status does not matter).
# Out-of-bounds accesses are always checked; the options add data races,
# uninitialized values and OpenCL API misuse. OCLGRIND overrides the binary.
set -uo pipefail
expect=()
while (($#)); do
  case "$1" in
    --expect) expect+=("$2"); shift 2 ;;
    --) shift; break ;;
    *) break ;;
  esac
done
(($#)) || { echo "usage: $0 [--expect REGEX]... -- PROGRAM [ARGS...]" >&2; exit 2; }

log=$(mktemp "${TMPDIR:-/tmp}/oclgrind-XXXXXX")
trap 'rm -f "$log"' EXIT
# Under the wrapper Oclgrind is the only platform; naming it makes sure.
export CLCONV_PLATFORM=Oclgrind
"${OCLGRIND:-oclgrind}" --data-races --uninitialized --check-api --max-errors 20 \
  --log "$log" "$@"
status=$?

if ((${#expect[@]})); then
  missing=0
  for regex in "${expect[@]}"; do
    grep -Eq -- "$regex" "$log" || { echo "oclgrind-run: expected a report matching '$regex'" >&2; missing=1; }
  done
  echo "oclgrind-run: Oclgrind's reports (program exit status $status):" >&2
  head -n 40 "$log" >&2
  exit "$missing"
fi
if [ -s "$log" ]; then
  echo "oclgrind-run: Oclgrind reported problems (program exit status $status):" >&2
  cat "$log" >&2
  exit 1
fi
exit "$status"
