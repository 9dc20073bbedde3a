#!/usr/bin/env bash
# On the GPU machine, in one job: build dgmax (build-gpu) and the libParanumal peer harness (from
# $PEER_DIR, default .libparanumal: a git-ignored checkout of the libParanumal harness with its
# OCCA submodule, e.g. `cp -a PATH/TO/libparanumal .libparanumal && echo /.libparanumal/ >>
# .git/info/exclude`, copied to the GPU machine with the tree), then time both on the same device: `dgmax bench --order ORDERS --elements 384000 --backends cuda` in each
# precision and the peer's Maxwell solver at N = 3, 4, 5 on its 40x40x40-cell box (K = 384,000).
#   bench/side_by_side.sh [ORDERS] [PEER_ORDERS]     (defaults: 1..8, "3 4 5"; PEER_ORDERS=none skips it)
# Writes $OUT/bench_{double,single}.json, $OUT/peer.txt and the logs; prints one table at the end.
set -uo pipefail
cd "$(dirname "$0")/.."
orders=${1:-1..8}
peer_orders=${2:-3 4 5}
out=${OUT:-out}
peer=${PEER_DIR:-.libparanumal}
mkdir -p "$out"
export DGMAX_CACHE_DIR=$PWD/build-gpu/kernel-cache
if [ -f .tuning/cuda.json ]; then mkdir -p "$DGMAX_CACHE_DIR/tuning" && cp .tuning/cuda.json "$DGMAX_CACHE_DIR/tuning/"; fi
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.max.sm --format=csv,noheader

# The harness's copy of OCCA lacks two files its build and run need: bin/CMakeLists.txt (OCCA does not
# configure without it) and include/occa/scripts/findCompilerVendor.cpp (OCCA aborts at its first
# kernel without it). Stand-ins written here (bench/peer/) go in where they are missing.
if [ "$peer_orders" != none ] && [ -d "$peer" ]; then
  [ -f "$peer/occa/bin/CMakeLists.txt" ] || cp bench/peer/occa_bin_CMakeLists.txt "$peer/occa/bin/CMakeLists.txt"
  [ -f "$peer/occa/include/occa/scripts/findCompilerVendor.cpp" ] ||
    { mkdir -p "$peer/occa/include/occa/scripts" && cp bench/peer/find_compiler_vendor.cpp "$peer/occa/include/occa/scripts/findCompilerVendor.cpp"; }
  (cd "$peer" && PREC=both JOBS=6 ./run_on_gpu.sh build > "$out/peer_build.log" 2>&1; echo "peer build rc $?" >> "$out/peer_build.log") &
  peer_build=$!
fi
start=$(date +%s)
cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DDGMAX_USE_VTK=OFF -DDGMAX_USE_GMSH=OFF > "$out/configure.log" 2>&1 ||
  { tail -30 "$out/configure.log"; exit 1; }
cmake --build build-gpu -j10 --target dgmax > "$out/build.log" 2>&1 || { grep -E "error" -A3 "$out/build.log" | head -40; exit 1; }
echo "dgmax built in $(( $(date +%s) - start )) s"
[ -n "${peer_build:-}" ] && { wait "$peer_build"; tail -1 "$out/peer_build.log"; }

for p in double single; do
  build-gpu/dgmax bench --order "$orders" --elements 384000 --backends cuda --precision $p \
    --json "$out/bench_$p.json" > "$out/bench_$p.txt" 2>&1
  echo "dgmax bench $p rc $?"
done
if [ -n "${peer_build:-}" ]; then
  (cd "$peer" && PREC=both ORDERS="$peer_orders" NXS=40 STEPS=100 ./run_on_gpu.sh run) > "$out/peer.txt" 2> "$out/peer_run.log"
  echo "peer run rc $?"
fi
for p in double single; do
  echo "== dgmax $p"; grep -E "^ +[0-9]+ +[0-9]+ +cuda|ceiling|plan" "$out/bench_$p.txt" | head -30
done
echo "== peer"; grep GPUPEER "$out/peer.txt" 2>/dev/null
exit 0
