#!/usr/bin/env bash
# On the GPU machine, in one job: the working tree against a baseline tree, side by side. Builds
# both (build-gpu, and BASE/build-gpu; BASE a git-ignored export of the commit to compare with,
# copied to the GPU machine with the tree: `git archive HEAD | tar -x -C .base`), then alternates `dgmax bench` of
# the two ROUNDS times per precision, each with its own kernel cache, and prints one line per run.
#   bench/ab_bench.sh ORDERS [BASE] [ROUNDS] [ELEMENTS]      e.g. bench/ab_bench.sh 1..3 .base 2
# Plans come from each tree's defaults (or DGMAX_CUDA_PLAN). Raw output in $OUT/ab_base.txt and ab_new.txt.
# AB_BACKEND=cpu compares the cpu backend instead (OpenMP on every core, threads bound to cores);
# AB_NEW_TARGET=dgmax builds only the program in the working tree (default: everything, tests too).
set -uo pipefail
cd "$(dirname "$0")/.."
orders=$1
base=${2:-.base}
rounds=${3:-2}
elements=${4:-384000}
out=${OUT:-out}
backend=${AB_BACKEND:-cuda}
if [ "$backend" = cpu ]; then export OMP_NUM_THREADS=${OMP_NUM_THREADS:-$(nproc)} OMP_PROC_BIND=close OMP_PLACES=cores; fi
mkdir -p "$out"
cfg=(-DCMAKE_BUILD_TYPE=Release -DDGMAX_USE_VTK=OFF -DDGMAX_USE_GMSH=OFF)
start=$(date +%s)
(cmake -S "$base" -B "$base/build-gpu" "${cfg[@]}" > "$out/ab_base_build.log" 2>&1 &&
  cmake --build "$base/build-gpu" -j4 --target dgmax >> "$out/ab_base_build.log" 2>&1) &
base_pid=$!
if [ ! -x build-gpu/dgmax ] || [ "${AB_REBUILD:-1}" = 1 ]; then
  (cmake -S . -B build-gpu "${cfg[@]}" > "$out/ab_new_build.log" 2>&1 &&
    cmake --build build-gpu -j12 ${AB_NEW_TARGET:+--target "$AB_NEW_TARGET"} >> "$out/ab_new_build.log" 2>&1) ||
    { tail -20 "$out/ab_new_build.log"; exit 1; }
fi
wait $base_pid || { tail -20 "$out/ab_base_build.log"; exit 1; }
echo "both built in $(( $(date +%s) - start )) s"
# each tree's runs in one raw file (a job on the GPU machine returns at most 8 files from $OUT)
run_out=$(mktemp)
rm -f "$out/ab_base.txt" "$out/ab_new.txt"
for p in ${AB_PRECISIONS:-single double}; do
  for r in $(seq "$rounds"); do
    for tree in base new; do
      if [ $tree = base ]; then bin=$base/build-gpu/dgmax; else bin=build-gpu/dgmax; fi
      DGMAX_CACHE_DIR=$PWD/.ab-cache-$tree "$bin" bench --order "$orders" --elements "$elements" --backends "$backend" \
        --precision $p --json "" > "$run_out" 2>&1
      { echo "=== $p $tree r$r"; cat "$run_out"; } >> "$out/ab_$tree.txt"
      grep -E "^ +[0-9]+ +[0-9]+ +$backend|ceilings" "$run_out" | sed "s/^/$p $tree r$r /"
    done
  done
done
