#!/usr/bin/env bash
# Bounds of the cuda one-node-per-thread stage: what each part of it costs, measured by leaving the
# part out (bench only: the answers are wrong, none of it is a solver; bench/NOTES.md, "the in-block
# neighbours measured", "Next"). The switches are compile-time defines in the generated source, chosen per run
# with DGMAX_TRY=NAME,...:
#   NMGATHER  each face node's exterior trace as three pair loads (float2/double2) at q + 6 nP: the
#             access pattern of a node-major state [K][NP][6] (the values are not the neighbour's)
#   NOFLUX    no face pass (the state's wait and barrier kept)
#   NOVOL     no volume loop (the curl is the staged state)
#   NOLIFT    no LIFT pass (one flux read per element keeps the face pass alive)
# Two steps:
#   bench/stage_bounds.sh prepare   here: .var (git-ignored) = the tree of 16d0bca (the emitter
#                                   before its split by concern) with bench/stage_bounds.patch
#   bench/stage_bounds.sh run [ORDERS] [ROUNDS]
#                                   on the GPU machine, .var carried: one build of .var's dgmax, then
#                                   `dgmax bench` of main's code ("none") and each switch, alternated
#                                   run by run, both precisions, each with its own kernel cache, one
#                                   line per run (default 1..3 and 2 rounds: ~330 s on an H200)
set -euo pipefail
cd "$(dirname "$0")/.."
base=16d0bca
case "${1:-}" in
  prepare)
    rm -rf .var && mkdir .var
    git archive "$base" | tar -x -C .var
    (cd .var && patch -p1 --quiet < ../bench/stage_bounds.patch)
    echo "stage_bounds: .var = $base + bench/stage_bounds.patch; next, on the GPU machine (carry .var):" \
      "bench/stage_bounds.sh run"
    ;;
  run)
    orders=${2:-1..3}
    rounds=${3:-2}
    out=${OUT:-out}
    mkdir -p "$out"
    [ -f .var/codegen/emit/cuda_kernels.cpp ] && grep -q TRY_NMGATHER .var/codegen/emit/cuda_kernels.cpp ||
      { echo "stage_bounds: no prepared .var here (run 'bench/stage_bounds.sh prepare' and carry .var)" >&2; exit 1; }
    t0=$(date +%s)
    (cmake -S .var -B .var/build-gpu -DCMAKE_BUILD_TYPE=Release -DDGMAX_USE_VTK=OFF -DDGMAX_USE_GMSH=OFF &&
      cmake --build .var/build-gpu -j"$(nproc)" --target dgmax) > "$out/stage_bounds_build.log" 2>&1 ||
      { tail -20 "$out/stage_bounds_build.log"; exit 1; }
    echo "[built in $(($(date +%s) - t0)) s]"
    for r in $(seq 1 "$rounds"); do
      for p in single double; do
        for v in none NMGATHER NOFLUX NOVOL NOLIFT; do
          # within a job's 600 s limit on the GPU machine: a run that would not end in time is not started
          left=$((540 - ($(date +%s) - t0)))
          [ "$left" -gt 20 ] || { echo "[stopped at 540 s: round $r, $p, $v not run]"; break 3; }
          try=$v
          [ "$v" = none ] && try=
          DGMAX_TRY=$try DGMAX_CACHE_DIR="$PWD/.cache-bounds-$v" timeout "$left" .var/build-gpu/dgmax bench --order "$orders" \
            --elements 384000 --backends cuda --precision "$p" --json "" 2>&1 |
            grep -E "^ +[0-9]+ +[0-9]+ +cuda" | sed "s/^/$p $v r$r /" || true
        done
      done
    done
    echo "[done in $(($(date +%s) - t0)) s]"
    ;;
  *)
    echo "usage: bench/stage_bounds.sh prepare | run [ORDERS] [ROUNDS]" >&2
    exit 2
    ;;
esac
