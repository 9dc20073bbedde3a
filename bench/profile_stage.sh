#!/usr/bin/env bash
# On the GPU machine, after build-gpu exists: Nsight Compute on one launch of the stage kernel
# (dgmax_stage) of `dgmax bench`, per order and precision, with the tuned (or default) plan or a
# given one. The clocks are left alone (--clock-control none, as the device notes ask).
#   bench/profile_stage.sh "3:single 4:single 3:double" [PLAN] [ELEMENTS] [curved]
# With `curved` the kernel is the curved group's (dgmax_curved_stage) on `dgmax bench --curved`'s
# box of curved elements (e.g. bench/profile_stage.sh "4:double 3:double" "" 96000 curved).
# Writes $OUT/ncu_N<N>_<precision>[_curved].txt (full report) and prints the lines that say where
# the time goes: throughput of each unit, achieved occupancy, warp stall reasons, L1/L2 hit rates,
# DRAM bytes.
set -uo pipefail
cd "$(dirname "$0")/.."
cases=$1
plan=${2:-}
elements=${3:-384000}
kernel=dgmax_stage curved_args=() suffix=
if [ "${4:-}" = curved ]; then kernel=dgmax_curved_stage curved_args=(--curved) suffix=_curved; fi
out=${OUT:-out}
mkdir -p "$out"
export DGMAX_CACHE_DIR=${DGMAX_CACHE_DIR:-$PWD/build-gpu/kernel-cache}
ncu=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu /usr/local/cuda/bin/ncu 2>/dev/null | head -1)
[ -n "$ncu" ] || { echo "no ncu on this machine"; exit 1; }
[ -n "$plan" ] && export DGMAX_CUDA_PLAN=$plan
for c in $cases; do
  N=${c%%:*} precision=${c##*:}
  report="$out/ncu_N${N}_${precision}${suffix}.txt"
  "$ncu" --clock-control none -k regex:"$kernel" -s 20 -c 1 \
    --section SpeedOfLight --section MemoryWorkloadAnalysis --section MemoryWorkloadAnalysis_Tables \
    --section WarpStateStats --section Occupancy --section LaunchStats --section SchedulerStats \
    --section ComputeWorkloadAnalysis --section InstructionStats \
    build-gpu/dgmax bench --order "$N" --elements "$elements" --backends cuda --precision "$precision" --steps 6 "${curved_args[@]}" \
    > "$report" 2>&1
  echo "== N=$N $precision (rc $?): $(grep -oE 'plan [^ ,]+' "$report" | head -1)"
  grep -E "Duration|DRAM Throughput|Memory Throughput|L1/TEX Hit|L2 Hit|Compute \(SM\)|Achieved Occupancy|Theoretical Occupancy|Registers Per|Block Limit|Stall|Warp Cycles Per Issued|Issue Slots Busy|Shared Memory Configuration|Dynamic Shared|Static Shared|Threads  " "$report" |
    sed -E 's/ {2,}/ /g' | head -40
done
