#!/usr/bin/env bash
# One entry point that sets everything up on Debian 12 and runs one thing:
#   ./quickstart.sh tour [tour options]    the tour on the default device
#   ./quickstart.sh test [ctest options]   the whole test suite through ctest
#   ./quickstart.sh build                  only install what is missing and build
# It installs the Debian packages that are missing (as root, or through sudo),
# configures with the "default" CMake preset and builds into build/.
set -euo pipefail
cd "$(dirname "$0")"

packages=(cmake g++ make ocl-icd-opencl-dev opencl-c-headers opencl-clhpp-headers
          catch2 libstb-dev libcli11-dev pocl-opencl-icd python3 libvkfft-dev bubblewrap)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "quickstart: installing ${missing[*]}" >&2
  sudo=""
  if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null || { echo "quickstart: need root (or sudo) to install ${missing[*]}" >&2; exit 1; }
    sudo="sudo"
  fi
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

cmake --preset default >/dev/null
cmake --build --preset default

what="${1:-tour}"
shift || true
case "$what" in
  tour)  exec build/bin/tour "$@" ;;
  test)  exec ctest --preset default "$@" ;;
  build) ;;
  *) echo "quickstart: unknown command '$what' (use tour, test or build)" >&2; exit 2 ;;
esac
