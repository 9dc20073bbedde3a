#!/usr/bin/env bash
# On the GPU machine, in one job: build (Release, no VTK/Gmsh there), run the gpu-labelled tests,
# then `dgmax tune` for the given orders and precisions, writing everything under $OUT (or ./out).
#   bench/gpu_check_and_tune.sh [ORDERS] [PRECISION] [ELEMENTS] [TESTS]
#   ORDERS: "3..5" (default), PRECISION: double|single|both (default both), ELEMENTS: 384000,
#   TESTS: a ctest -R regex for the gpu tests (default: all of them; "none" skips them)
# A tuning database in .tuning/cuda.json (carried, git-ignored) seeds the cache; the database after
# the job is left in $OUT/cuda_tuning.json.
set -uo pipefail
cd "$(dirname "$0")/.."
orders=${1:-3..5}
precision=${2:-both}
elements=${3:-384000}
tests=${4:-.}
out=${OUT:-out}
mkdir -p "$out"
export DGMAX_CACHE_DIR=$PWD/build-gpu/kernel-cache
# a tuning database copied from an earlier job (a fresh GPU machine has none)
if [ -f .tuning/cuda.json ]; then mkdir -p "$DGMAX_CACHE_DIR/tuning" && cp .tuning/cuda.json "$DGMAX_CACHE_DIR/tuning/"; fi
start=$(date +%s)
cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DDGMAX_USE_VTK=OFF -DDGMAX_USE_GMSH=OFF > "$out/configure.log" 2>&1 ||
  { tail -30 "$out/configure.log"; exit 1; }
cmake --build build-gpu -j"$(nproc)" > "$out/build.log" 2>&1 || { grep -E "error" -A3 "$out/build.log" | head -40; exit 1; }
echo "built in $(( $(date +%s) - start )) s"
if [ "$tests" != none ]; then
  start=$(date +%s)
  ctest --test-dir build-gpu -L gpu -R "$tests" -j4 --output-on-failure > "$out/gpu_tests.log" 2>&1
  echo "gpu tests (rc $?) in $(( $(date +%s) - start )) s:"
  grep -E "tests passed|tests failed|\(Failed\)|\*\*\*" "$out/gpu_tests.log" | head -20
fi
if [ "$orders" != none ]; then
  build-gpu/dgmax tune --order "$orders" --precision "$precision" --elements "$elements" \
    --json "$out/tune_${orders//./_}_${precision}.json" > "$out/tune_${orders//./_}_${precision}.txt" 2>&1
  echo "tune rc $?"
  grep -E "^N =|best:|refused" "$out/tune_${orders//./_}_${precision}.txt" | grep -v refused | head -40
fi
[ -f "$DGMAX_CACHE_DIR/tuning/cuda.json" ] && cp "$DGMAX_CACHE_DIR/tuning/cuda.json" "$out/cuda_tuning.json"
exit 0
