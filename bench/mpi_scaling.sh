#!/usr/bin/env bash
# Weak and strong scaling of `dgmax run` over GPUs (one rank per GPU), after a build in build-gpu
# (or $BUILD):
#   bench/mpi_scaling.sh [ORDER] [CELLS] [STEPS] [PRECISIONS] [RANKS]
# Box meshes of CELLS^3 cells per GPU (6 tets per cell; CELLS = 69 gives 1.97M elements), PEC walls,
# a cavity mode as the initial state, no output but summary.json. For each precision and each rank
# count P in RANKS (default "2"):
#   one  : 1 rank,  CELLS x CELLS x CELLS            (the reference)
#   weak : P ranks, CELLS x CELLS x (P*CELLS)        (same elements per GPU; same h, so same dt)
#   strong: P ranks, CELLS x CELLS x CELLS           (the reference's problem cut in P)
# Efficiency: weak = t1 / tP, strong = t1 / (P tP), t the loop time per step. The report's
# "waited" is the exchange time the slowest rank did not hide, "hidden" the part spent behind
# the interior elements' kernel. DGMAX_HALO_OVERLAP=0 turns the overlap off; PARTITION=rcb|sfc|metis
# picks the partition (default auto); BACKEND=cpu runs the cpu backend (a check of the script, not a
# GPU measurement).
set -uo pipefail
cd "$(dirname "$0")/.."
order=${1:-4}
cells=${2:-69}
steps=${3:-100}
precisions=${4:-double single}
rank_counts=${5:-2}
bin=${BUILD:-build-gpu}/dgmax
out=${OUT:-out}/mpi_scaling
mkdir -p "$out"
root=""
[ "$(id -u)" = 0 ] && root="--allow-run-as-root"
# dt ~ cfl h / (N+1)^2 with h = 1/cells: the same for every case, so steps fix time.final
final=$(awk "BEGIN{printf \"%.10g\", $steps * 0.5 / $cells / ($order + 1)^2}")

config() {  # config FILE NZ: box [0,1]x[0,1]x[0,NZ/cells] with cells x cells x NZ cells
  local file=$1 nz=$2
  local zmax
  zmax=$(awk "BEGIN{printf \"%.17g\", $nz / $cells}")
  cat > "$file" <<EOF
mesh:
  box: {lower: [0, 0, 0], upper: [1, 1, $zmax], cells: [$cells, $cells, $nz]}
discretization: {order: $order, flux: upwind}
materials: {default: {eps: 1, mu: 1}}
boundaries: {default: pec}
initial:
  E: ["0", "0", "sin(pi*x)*sin(pi*y)"]
  H: ["0", "0", "0"]
time: {final: $final, cfl: 0.5}
output: {vtk_every: 0}
backend: ${BACKEND:-cuda}
EOF
}

run_case() {  # run_case NAME RANKS NZ PRECISION
  local name=$1 ranks=$2 nz=$3 prec=$4
  local cfg="$out/$name.yaml" dir="$out/run_${name}"
  config "$cfg" "$nz"
  local sets=(--set discretization.precision="$prec" --set partition="${PARTITION:-auto}" --output "$dir" --overwrite -q)
  if [ "$ranks" = 1 ]; then
    timeout 500 "$bin" run "$cfg" "${sets[@]}" > "$out/$name.log" 2>&1
  else
    # one GPU per rank (dgmax takes the local rank's device); no core binding, so each rank's
    # set-up threads spread over the host
    timeout 500 mpirun -np "$ranks" $root --oversubscribe --bind-to none -x DGMAX_HALO_OVERLAP -x OMP_NUM_THREADS \
      "$bin" run "$cfg" "${sets[@]}" > "$out/$name.log" 2>&1
  fi
  local rc=$?
  [ $rc = 0 ] || { echo "$name: rc $rc"; tail -5 "$out/$name.log"; return 1; }
}

summary() {  # summary NAME -> "ranks K steps loop_s per_step_ms gdof wait hidden MB_per_stage plan"
  python3 - "$out/run_$1/summary.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
steps = s["steps"]
# the traces one rank sends per stage (the busiest rank): 6 fields x Nfp face nodes per halo face
N, w = s["N"], 8 if s["precision"] == "double" else 4
faces = max(s.get("partition", {}).get("halo_faces", [0]))
mb = faces * 6 * (N + 1) * (N + 2) // 2 * w / 1e6
print(s.get("ranks", 1), s["K"], steps, s["loop_s"], 1e3 * s["loop_s"] / steps, s["gdof_per_s"],
      s.get("exchange_wait_s", 0), s.get("exchange_hidden_s", 0), f"{mb:.3g}", s.get("kernel_plan", "-"))
PY
}

export OMP_NUM_THREADS=${OMP_NUM_THREADS:-8}
export DGMAX_HALO_OVERLAP=${DGMAX_HALO_OVERLAP:-1}
table="$out/table.txt"
printf "%-6s %-7s %5s %9s %6s %9s %9s %8s %7s %8s %8s %8s  %s\n" prec case ranks K steps "ms/step" "GDOF/s" "per-GPU" \
  "eff" "waited" "hidden" "MB/stage" plan > "$table"
for prec in $precisions; do
  run_case "one_$prec" 1 "$cells" "$prec" || continue
  read -r _ K1 st1 _ t1 g1 _ _ _ plan1 <<< "$(summary "one_$prec")"
  printf "%-6s %-7s %5d %9d %6d %9.3f %9.2f %8.2f %7s %8s %8s %8s  %s\n" "$prec" one 1 "$K1" "$st1" "$t1" "$g1" "$g1" - - - \
    - "$plan1" >> "$table"
  for P in $rank_counts; do
    for kind in weak strong; do
      nz=$cells
      [ $kind = weak ] && nz=$((P * cells))
      run_case "${kind}${P}_$prec" "$P" "$nz" "$prec" || continue
      read -r r K st loop t g wait hidden mb plan <<< "$(summary "${kind}${P}_$prec")"
      [ $kind = weak ] && eff=$(awk "BEGIN{printf \"%.3f\", $t1 / $t}") || eff=$(awk "BEGIN{printf \"%.3f\", $t1 / ($P * $t)}")
      printf "%-6s %-7s %5d %9d %6d %9.3f %9.2f %8.2f %7s %8.3f %8.3f %8s  %s\n" "$prec" "$kind" "$r" "$K" "$st" "$t" "$g" \
        "$(awk "BEGIN{print $g / $r}")" "$eff" "$wait" "$hidden" "$mb" "$plan" >> "$table"
    done
  done
done
cat "$table"
