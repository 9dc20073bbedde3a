#!/usr/bin/env bash
# Several ranks against one, on the machine at hand (after a build in build-gpu or $BUILD):
#   bench/mpi_check.sh [RANKS] [BACKEND] [CELLS] [ORDER]
# Runs configs/cavity.yaml on one rank and on RANKS ranks (mpirun, shared-memory transport), in
# double and single precision, and prints both runs' errors, energies, dt and loop time side by
# side, with the partition and the time the ranks waited for face traces. With one GPU, all ranks
# share it (a correctness check, not a scaling measurement).
set -uo pipefail
cd "$(dirname "$0")/.."
ranks=${1:-2}
backend=${2:-cuda}
cells=${3:-6}
order=${4:-4}
bin=${BUILD:-build-gpu}/dgmax
out=${OUT:-out}/mpi_check
mkdir -p "$out"
root=""
[ "$(id -u)" = 0 ] && root="--allow-run-as-root"
for prec in double single; do
  sets=(--set "mesh.box.cells=[$cells,$cells,$cells]" --set discretization.order=$order
        --set discretization.precision=$prec --set backend=$backend --set output.vtk_every=0 -q)
  "$bin" run configs/cavity.yaml --output "$out/one_$prec" --overwrite "${sets[@]}" || exit 1
  OMPI_MCA_btl=self,vader timeout 300 mpirun -np "$ranks" --oversubscribe $root \
    "$bin" run configs/cavity.yaml --output "$out/many_$prec" --overwrite "${sets[@]}" || exit 1
  for run in one many; do
    python3 - "$out/${run}_$prec/summary.json" "$run" "$prec" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
e = s["errors"]
print(f"{sys.argv[3]:6s} {sys.argv[2]:4s} ranks {s.get('ranks', 1)}  K {s['K']}  dt {s['dt']!r}  "
      f"L2 E {e['L2']['E']!r}  H {e['L2']['H']!r}  Linf E {e['Linf']['E']!r}  energy {s['energy']['final']!r}  "
      f"loop {s['loop_s']:.3f} s  wait {s.get('exchange_wait_s', 0):.3f} s  hidden {s.get('exchange_hidden_s', 0):.3f} s  {s.get('partition', {}).get('method', '')}")
PY
  done
done
