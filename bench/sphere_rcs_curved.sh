#!/usr/bin/env bash
# The sphere RCS configs (PEC and eps = 4) on curved and straight-sided meshes made beforehand with
# `dgmax info CONFIG -N q --write-msh FILE` (a GPU host has no Gmsh): one run per line of CASES,
# each run's far_field_rcs.csv and summary.json kept as OUT/<case>.csv and OUT/<case>.json, and
# one line per run (K, N, steps, loop seconds, GDOF/s). Compare with the Mie series
# afterwards (postprocess/mie_rcs.py --from-csv, bench/NOTES.md "2026-12-06 — The sphere RCS on
# blended curved elements").
#
# Usage: bench/sphere_rcs_curved.sh MSH_DIR OUT CASE...
#   CASE = name:config:mesh.msh:N:final_time[:key=value] (config: a shipped config's name or a path), e.g. pec_q4_N4:sphere_rcs_pec:A_pec_q4.msh:4:4
#   (key=value: one more --set, e.g. pml.alpha=0)
set -euo pipefail
msh_dir=$1 out=$2
shift 2
dgmax=${DGMAX:-build/dgmax}
backend=${BACKEND:-cuda}
mkdir -p "$out"
for case in "$@"; do
  IFS=: read -r name config msh N final extra <<<"$case"
  dir=$(mktemp -d)
  [[ -f $config ]] || config=configs/$config.yaml  # a path, or a shipped config's name
  $dgmax run "$config" --set "mesh.file=$msh_dir/$msh" --set "discretization.order=$N" \
    --set "time.final=$final" --set "backend=$backend" ${extra:+--set "$extra"} --output "$dir" --quiet \
    > "$dir/log.txt" 2>&1 ||
    { echo "$name: failed"; tail -5 "$dir/log.txt"; continue; }
  cp "$dir/far_field_rcs.csv" "$out/$name.csv"
  cp "$dir/summary.json" "$out/$name.json"
  python3 -c "
import json, sys
s = json.load(open(sys.argv[1]))
print(sys.argv[2], 'K', s['K'], 'N', s['N'], 'steps', s['steps'],
      'loop_s', s['loop_s'], 'gdof_per_s', s['gdof_per_s'])" "$out/$name.json" "$name"
  rm -rf "$dir"
done
