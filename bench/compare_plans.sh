#!/usr/bin/env bash
# On the GPU machine, after bench/gpu_check_and_tune.sh has built build-gpu: `dgmax bench` of the
# tuned (or default) plan and of the given plans, per order, one precision.
#   bench/compare_plans.sh ORDERS PRECISION "PLAN PLAN ..." [ELEMENTS]
#   e.g. bench/compare_plans.sh "4 5 6" double "f2.b4.t1.M f2.b8.t1.M" 384000
# Prints one line per (order, plan): N, plan, stage time, GDOF/s, % floor (from bench's table).
set -uo pipefail
cd "$(dirname "$0")/.."
orders=$1
precision=$2
plans=$3
elements=${4:-384000}
export DGMAX_CACHE_DIR=${DGMAX_CACHE_DIR:-$PWD/build-gpu/kernel-cache}
for N in $orders; do
  for plan in tuned $plans; do
    if [ "$plan" = tuned ]; then unset DGMAX_CUDA_PLAN; else export DGMAX_CUDA_PLAN=$plan; fi
    text=$(build-gpu/dgmax bench --order "$N" --elements "$elements" --backends cuda --precision "$precision" \
             --steps 30 2>&1)
    line=$(grep -E "^ +$N +[0-9]+ +cuda" <<<"$text" | head -1)
    printf "N=%s %-14s %s\n" "$N" "$plan" "${line:-FAILED: $(tail -3 <<<"$text" | tr '\n' ' ')}"
  done
done
unset DGMAX_CUDA_PLAN
