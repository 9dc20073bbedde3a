#!/usr/bin/env bash
# On the GPU machine: build dgmax (Release, no VTK/Gmsh), search the plans of ORDERS in both
# precisions (`dgmax tune`, from the carried database or an empty one), then `dgmax bench` at
# BENCH_ORDERS with the tuning database moved aside (the default plans) and with it (the tuned
# ones), both precisions. Everything lands under $OUT (or ./out); the database after the search is
# left there as cuda_tuning.json (give it back as TUNING_DB=path to continue in a later job).
#   bench/tuned_vs_default.sh [ORDERS] [BENCH_ORDERS] [ELEMENTS]     (defaults: 1..5, ORDERS, 384000)
# The README's H200 tuned table: `bench/tuned_vs_default.sh 1..5` and `bench/tuned_vs_default.sh 6..8`.
set -uo pipefail
cd "$(dirname "$0")/.."
orders=${1:-1..5}
bench_orders=${2:-$orders}
elements=${3:-384000}
out=${OUT:-out}
mkdir -p "$out"
t0=$(date +%s)
export DGMAX_CACHE_DIR=$PWD/build-gpu/kernel-cache
mkdir -p "$DGMAX_CACHE_DIR/tuning"
if [ -n "${TUNING_DB:-}" ]; then cp "$TUNING_DB" "$DGMAX_CACHE_DIR/tuning/cuda.json"; fi
cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DDGMAX_USE_VTK=OFF -DDGMAX_USE_GMSH=OFF > "$out/configure.log" 2>&1 ||
  { tail -30 "$out/configure.log"; exit 1; }
cmake --build build-gpu -j"$(nproc)" --target dgmax > "$out/build.log" 2>&1 || { grep -E "error" -A3 "$out/build.log" | head -30; exit 1; }
echo "built in $(( $(date +%s) - t0 )) s"
tag=${orders//./_}
build-gpu/dgmax tune --order "$orders" --precision both --elements "$elements" --json "$out/tune_$tag.json" \
  > "$out/tune_$tag.txt" 2>&1
echo "tune rc $? [$(( $(date +%s) - t0 )) s]"
grep -E "^N =|best:" "$out/tune_$tag.txt"
cp "$DGMAX_CACHE_DIR/tuning/cuda.json" "$out/cuda_tuning.json"
for p in double single; do
  for which in default tuned; do
    [ "$which" = default ] && mv "$DGMAX_CACHE_DIR/tuning" "$DGMAX_CACHE_DIR/tuning.aside"
    build-gpu/dgmax bench --order "$bench_orders" --elements "$elements" --backends cuda --precision "$p" \
      --json "$out/bench_${which}_$p.json" > "$out/bench_${which}_$p.txt" 2>&1
    echo "== $which $p rc $? [$(( $(date +%s) - t0 )) s]"
    [ "$which" = default ] && mv "$DGMAX_CACHE_DIR/tuning.aside" "$DGMAX_CACHE_DIR/tuning"
    grep -E "^ +[0-9]+ +[0-9]+ +cuda|plan" "$out/bench_${which}_$p.txt"
  done
done
echo "done in $(( $(date +%s) - t0 )) s"
