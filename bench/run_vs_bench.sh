#!/usr/bin/env bash
# A run from a config against `dgmax bench` on the same K and N (bench/NOTES.md, "runs from
# config files at the kernels' speed"): four cases on the
# config bench/configs/run_case.yaml (a PEC box cavity with its exact solution):
#   a  default output settings (energy and errors sampled every max(10, steps/200) steps)
#   a1 case a sampled at every step
#   b  plus a current source J(x,t) (a Gaussian times sin(10 t))
#   c  plus an incident boundary on xmin
#   d  case a plus 10 snapshots (HDF5)
# Prints one table row per case: loop GDOF/s per stage, its ratio to the bench, the share of the
# loop in kernels, set-up and compile time.
#
# Usage: bench/run_vs_bench.sh BACKEND PRECISION NX,NY,NZ FINAL_TIME [FINAL_TIME_SNAPSHOTS]
#   e.g. bench/run_vs_bench.sh cuda double 40,20,20 0.45   (K = 96,000, about 120 steps)
set -euo pipefail
backend=$1 precision=$2 cells=$3 final=$4 final_snap=${5:-$4}
dgmax=${DGMAX:-build/dgmax}
out=${OUT_DIR:-out/run_vs_bench}
IFS=, read -r nx ny nz <<<"$cells"
K=$((6 * nx * ny * nz))
common=(--set "backend=$backend" --set "discretization.precision=$precision" --set "mesh.box.cells=[$nx,$ny,$nz]" --quiet)
J='sources={J: ["0", "0", "exp(-((x-1)^2+(y-0.5)^2+(z-0.5)^2)/0.01)*sin(10*t)"]}'
INC='incident={E: ["0", "0", "exp(-((x-t+0.5)/0.2)^2)"], H: ["0", "-exp(-((x-t+0.5)/0.2)^2)", "0"]}'
BC='boundaries={default: pec, xmin: incident}'

# the yardstick: same K, N, precision (bench meshes a periodic box of K elements)
bench_json=$out/bench_${backend}_${precision}_$K.json
mkdir -p "$out"
$dgmax bench --order 4 --elements $K --backends "$backend" --precision "$precision" --steps 50 --json "$bench_json" > /dev/null
bench=$(python3 -c "import json,sys; r=json.load(open(sys.argv[1]))['results']; print(r[-1]['gdof_per_s'])" "$bench_json")

printf "%-4s %-7s %-6s %8s %6s %10s %10s %7s %7s %8s %8s\n" case backend prec K steps run_GDOF/s bench ratio kernels setup_s compile
run_case() {
  local name=$1; shift
  $dgmax run bench/configs/run_case.yaml "${common[@]}" --output "$out/$name" "$@"
  python3 - "$out/$name/summary.json" "$name" "$bench" <<'PY'
import json, sys
s = json.load(open(sys.argv[1])); bench = float(sys.argv[3])
print(f"{sys.argv[2]:<4} {s['backend']:<7} {s['precision'][:6]:<6} {s['K']:>8} {s['steps']:>6} {s['gdof_per_s']:>10.3f} {bench:>10.3f} "
      f"{s['gdof_per_s']/bench:>7.2f} {100*s['kernel_share']:>6.0f}% {s['setup_s']:>8.2f} {s['kernels']['compile_s']:>8.2f}")
PY
}
run_case a --set "time.final=$final"
run_case a1 --set "time.final=$final" --set output.energy_every=1
run_case b --set "time.final=$final" --set "$J"
run_case c --set "time.final=$final" --set "$INC" --set "$BC"
run_case d --set "time.final=$final_snap" --set "output.vtk_every=$(python3 -c "print($final_snap/10)")"
