#!/usr/bin/env bash
# The reliability stages of CI (docs/reliability.md), run after the main suite:
#   oclgrind  every step's kernels under Oclgrind    (build/, ctest --preset oclgrind)
#   asan      the whole suite under ASan and UBSan   (build-asan/, ctest --preset asan),
#             the grader's (label grade) included: build/bin/grade and every
#             conformance process it starts, sanitized
#   fuzz      each libFuzzer target for 60 s         (build-fuzz/, ctest --preset fuzz)
# Usage: tests/reliability/ci.sh [STAGE...]   (default: all three, in that order)
# Installs what the stages need on Debian 12 (as root, or through sudo) first.
# Every stage runs even if one before it failed; the exit status says if any did.
set -uo pipefail
cd "$(dirname "$0")/../.."

packages=(oclgrind clang libclang-rt-14-dev)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "reliability: installing ${missing[*]}" >&2
  sudo=""
  if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null || { echo "reliability: need root (or sudo) to install ${missing[*]}" >&2; exit 1; }
    sudo="sudo"
  fi
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null || exit 1
fi

# configure, build and test one preset; build/ is configured again so that
# it finds oclgrind, which the first configure (by quickstart.sh) may not have.
run_preset() {
  local preset=$1 build=$2
  cmake --preset "$build" >/dev/null && cmake --build --preset "$build" && ctest --preset "$preset"
}

# The asan stage, with one allowance: LeakSanitizer's exit-time tracer
# sometimes segfaults by itself ("Tracer caught signal 11", a known flaky
# sanitizer-runtime fault) after a test's checks have passed. When that is the
# only way any test failed (tracer_crashes.py reads the log), those tests run
# again, up to three times, each rerun's log classified the same way; a real
# leak, memory error or UB report fails every time and ends the stage at once.
run_asan() {
  run_preset asan asan && return 0
  local rerun
  for rerun in 1 2 3; do
    python3 tests/reliability/tracer_crashes.py build-asan/Testing/Temporary/LastTest.log || return 1
    echo "reliability: rerunning those tests ($rerun of 3)" >&2
    ctest --preset asan --rerun-failed && return 0
  done
  return 1
}

stages=("$@")
((${#stages[@]})) || stages=(oclgrind asan fuzz)
failed=()
summary=()
for stage in "${stages[@]}"; do
  echo "== reliability: $stage" >&2
  start=$SECONDS
  case "$stage" in
    oclgrind) run_preset oclgrind default ;;
    asan)     run_asan ;;
    fuzz)     run_preset fuzz fuzz ;;
    *) echo "reliability: unknown stage '$stage' (oclgrind, asan, fuzz)" >&2; exit 2 ;;
  esac
  status=$?
  ((status == 0)) || failed+=("$stage")
  summary+=("$(printf '%-9s %4d s  %s' "$stage" $((SECONDS - start)) "$([ $status -eq 0 ] && echo passed || echo FAILED)")")
done
echo "== reliability: stage times" >&2
printf '  %s\n' "${summary[@]}" >&2
if ((${#failed[@]})); then
  echo "reliability: failed: ${failed[*]}" >&2
  exit 1
fi
