#!/usr/bin/env bash
# Installs what is missing, configures and builds dgmax into ./build (Release).
# Extra arguments go to CMake, e.g. .ci/build.sh -DDGMAX_USE_VTK=OFF
set -euo pipefail
cd "$(dirname "$0")/.."
.ci/install-deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release "$@" > build.log 2>&1 || { cat build.log; exit 1; }
grep -A8 "dgmax configuration" build.log || true
cmake --build build -j"$(nproc)" >> build.log 2>&1 || { tail -60 build.log; exit 1; }
echo "built build/dgmax (full log: build.log)"
