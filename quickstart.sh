#!/usr/bin/env bash
# One entry point that installs what the build needs and runs one thing:
#   ./quickstart.sh tour [tour options]    build only the tour, then run it on
#                                          the default device
#   ./quickstart.sh test [ctest options]   build everything, then run the whole
#                                          test suite through ctest
#   ./quickstart.sh build                  build everything
# Without a command it runs the tour. Each command first installs the packages
# that are missing with the system's package manager, then configures with the
# "default" CMake preset and builds into build/:
#   apt   Debian 12 / Ubuntu (as root, or through sudo): what CI runs
#   dnf   Fedora (as root, or through sudo)
#   brew  macOS (as you: Homebrew refuses root); OpenCL itself comes with
#         macOS (OpenCL.framework), so only headers and tools are added
# The dnf and brew package names are checked against the Fedora and Homebrew
# package indexes, but those branches are not run in CI. What a system's
# packages lack (VkFFT on Fedora and macOS, stb on macOS) CMake fetches at a
# pinned version (cmake/dependencies.cmake). Any other system: install the
# equivalents yourself and run the two cmake commands at the end.
set -euo pipefail
cd "$(dirname "$0")"

what="${1:-tour}"
shift || true
case "$what" in
  tour|test|build) ;;
  help|-h|--help) sed -n '2,19p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
  *) echo "quickstart: unknown command '$what' (use tour, test or build)" >&2; exit 2 ;;
esac

# Installs with "$@" (a package manager's install command) as root: directly,
# or through sudo.
as_root() {
  if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null || { echo "quickstart: need root (or sudo) to install ${missing[*]}" >&2; exit 1; }
    sudo "$@"
  else
    "$@"
  fi
}

missing=()
if command -v apt-get >/dev/null && command -v dpkg-query >/dev/null; then
  # Debian/Ubuntu: the list CI installs and tests.
  packages=(cmake g++ make ocl-icd-opencl-dev opencl-c-headers opencl-clhpp-headers
            catch2 libstb-dev libcli11-dev pocl-opencl-icd python3 libvkfft-dev bubblewrap)
  for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  if ((${#missing[@]})); then
    echo "quickstart: installing ${missing[*]}" >&2
    as_root apt-get update -qq
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  fi
elif command -v dnf >/dev/null; then
  # Fedora. Names checked against the Fedora package index
  # (packages.fedoraproject.org); this branch is not run in CI.
  # opencl-headers carries CL/opencl.hpp too; catch2-devel is Catch2 v2 (as on
  # Debian 12), catch-devel would be v3. No VkFFT package: CMake fetches it.
  echo "quickstart: Fedora (dnf): package names checked against the Fedora index, not tested in CI" >&2
  packages=(gcc-c++ make cmake ocl-icd-devel opencl-headers pocl catch2-devel
            cli11-devel stb_image-devel stb_image_write-devel python3 bubblewrap)
  for p in "${packages[@]}"; do
    rpm -q --quiet "$p" || missing+=("$p")
  done
  if ((${#missing[@]})); then
    echo "quickstart: installing ${missing[*]}" >&2
    as_root dnf install -y -q "${missing[@]}"
  fi
elif [ "$(uname -s)" = Darwin ] && command -v brew >/dev/null; then
  # macOS. Names checked against the Homebrew index (formulae.brew.sh); this
  # branch is not run in CI. The compiler and make are the Xcode Command Line
  # Tools'; OpenCL is the system's OpenCL.framework (OpenCL 1.2), so neither
  # the ICD loader nor PoCL is installed. No stb or VkFFT formula: CMake
  # fetches them. bubblewrap (the grader's sandbox) is Linux only.
  echo "quickstart: macOS (brew): formula names checked against the Homebrew index, not tested in CI" >&2
  xcode-select -p >/dev/null 2>&1 || { echo "quickstart: install the Xcode Command Line Tools first: xcode-select --install" >&2; exit 1; }
  packages=(cmake opencl-clhpp-headers catch2 cli11)
  command -v python3 >/dev/null || packages+=(python3)
  for p in "${packages[@]}"; do
    brew list --versions "$p" >/dev/null 2>&1 || missing+=("$p")
  done
  if ((${#missing[@]})); then
    echo "quickstart: installing ${missing[*]}" >&2
    brew install "${missing[@]}"
  fi
  # opencl-clhpp-headers is keg-only (macOS has its own OpenCL): show CMake where.
  clhpp_prefix="$(brew --prefix opencl-clhpp-headers)"
  export CMAKE_PREFIX_PATH="$clhpp_prefix${CMAKE_PREFIX_PATH:+:$CMAKE_PREFIX_PATH}"
else
  echo "quickstart: no apt-get, dnf or brew here: install a C++17 compiler, make, CMake 3.22+, the OpenCL ICD loader and headers, an OpenCL driver (PoCL for the CPU) and python3, then run: cmake --preset default && cmake --build --preset default" >&2
  exit 1
fi

cmake --preset default >/dev/null
case "$what" in
  tour)  cmake --build --preset default --target tour
         exec build/bin/tour "$@" ;;
  test)  cmake --build --preset default
         exec ctest --preset default "$@" ;;
  build) cmake --build --preset default ;;
esac
