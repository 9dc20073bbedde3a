#!/usr/bin/env bash
# Installs the Debian packages dgmax builds and tests with. Idempotent: prints nothing and does
# nothing when everything is already installed. Needs root (or sudo) only when something is missing.
set -euo pipefail

packages=(
  g++ cmake make libgtest-dev
  libeigen3-dev libhdf5-dev libyaml-cpp-dev libcli11-dev nlohmann-json3-dev libfmt-dev
  libgmsh-dev gmsh libvtk9-dev libmetis-dev
  libopenmpi-dev openmpi-bin   # several ranks (mpirun); the multi-rank tests
  python3 python3-numpy python3-matplotlib python3-h5py python3-vtk9
  python3-pil   # tests/unit/postprocess/render_test.cpp reads the PNGs' size, pixels and text chunks
  clang-16 libclang-rt-16-dev libomp-16-dev   # .ci/fuzz.sh: libFuzzer, sanitizer runtimes (clang 14 lacks C++20 parts dgmax uses)
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
[ ${#missing[@]} -eq 0 ] && exit 0

sudo=""
if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
echo "installing: ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "done"
