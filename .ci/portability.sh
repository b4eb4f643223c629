#!/usr/bin/env bash
# The course builds beyond Debian 12's gcc (README, "Set-up per platform"):
#   1. with clang, every target, warnings as errors (build-clang/);
#   2. for Windows with MinGW-w64: every step, the tour, sweep, kernel-info
#      and the histogram as .exe files (.ci/cross-windows.sh, build-mingw/);
#   3. configured with CMake 3.22, Ubuntu 22.04's, from PyPI (the presets
#      listed, the project configured in build-cmake322/).
# What cannot run here (macOS, MSVC) is not checked; the README says so.
set -euo pipefail
cd "$(dirname "$0")/.."
start=$SECONDS
need=()
for p in clang g++-mingw-w64-x86-64 python3-venv; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || need+=("$p")
done
if ((${#need[@]})); then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi

cmake -S . -B build-clang -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=Release -DCLCONV_WERROR=ON >/dev/null
cmake --build build-clang -j "$(nproc)"
echo "== portability: clang build, warnings as errors: $((SECONDS - start)) s" >&2

t=$SECONDS
bash .ci/cross-windows.sh
echo "== portability: MinGW-w64 cross-build: $((SECONDS - t)) s" >&2

t=$SECONDS
venv="${TMPDIR:-/tmp}/clconv-cmake322"
[ -x "$venv/bin/cmake" ] || { python3 -m venv "$venv" && "$venv/bin/pip" install -q 'cmake==3.22.*'; }
"$venv/bin/cmake" --version | head -n 1
"$venv/bin/cmake" --list-presets
rm -rf build-cmake322
"$venv/bin/cmake" -S . -B build-cmake322 -DCMAKE_BUILD_TYPE=Release >/dev/null
echo "== portability: CMake 3.22 configure: $((SECONDS - t)) s" >&2
echo "== portability: all of it: $((SECONDS - start)) s" >&2
