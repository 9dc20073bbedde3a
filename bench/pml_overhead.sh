#!/usr/bin/env bash
# What the open-domain features cost on the GPU: `dgmax run` of the same box mesh (K elements,
# order N) plain, with a layer (pml), with a layer, a TF/SF plane wave and 10 probes (full), and
# with a DFT monitor too (dft), each timed by the run's own report (loop GDOF/s per stage).
#   bench/pml_overhead.sh [N] [CELLS] [LAYER_CELLS] [STEPS] [PRECISION]
# The mesh has CELLS + 2 LAYER_CELLS cells per axis either way (6 tets per cell); with the layer,
# the outer LAYER_CELLS cells on each side are the PML. Run from the repository root after a
# build in build-gpu (bench/gpu_check_and_tune.sh builds it). KINDS="plain pml" runs only those;
# DGMAX_CUDA_PLAN=<plan> forces a plan (else each run takes its default or tuned one).
set -euo pipefail
cd "$(dirname "$0")/.."
N=${1:-4}
cells=${2:-40}
layer=${3:-4}
steps=${4:-200}
precision=${5:-double}
out=${OUT:-out}/pml_overhead
mkdir -p "$out"
total=$((cells + 2 * layer))
h=$(awk "BEGIN{print 1.0 / $cells}")
half=$(awk "BEGIN{printf \"%.17g\", 0.5 + $layer / $cells}")
thick=$(awk "BEGIN{printf \"%.17g\", $layer / $cells}")
common="discretization: {order: $N, precision: $precision, flux: upwind}
constants: {w: 0.1, t0: 0.3, tau: 0.08}
materials: {default: {eps: 1, mu: 1}}
boundaries: {default: pec}
sources:
  J: [\"0\", \"0\", \"-(t - t0)/tau*exp(-((t - t0)/tau)^2)*exp(-(x^2 + y^2 + z^2)/w^2)\"]
output: {vtk_every: 0}
backend: cuda"
printf "mesh:\n  box: {lower: [-%s, -%s, -%s], upper: [%s, %s, %s], cells: [%d, %d, %d]}\n%s\n" \
  "$half" "$half" "$half" "$half" "$half" "$half" "$total" "$total" "$total" "$common" > "$out/plain.yaml"
printf "mesh:\n  box: {lower: [-0.5, -0.5, -0.5], upper: [0.5, 0.5, 0.5], cells: [%d, %d, %d], pml: %s}\n%s\npml: {order: 3, reflection: 1e-6}\n" \
  "$cells" "$cells" "$cells" "$thick" "$common" > "$out/pml.yaml"
# full: the layer, a total-field/scattered-field box with a plane wave and 10 probes; dft: and a
# DFT monitor (3 frequencies) on a closed box
probes=""
for i in 0 1 2 3 4 5 6 7 8 9; do probes="$probes    - {name: p$i, at: [0.0$i, 0.1, 0.2]}\n"; done
{ cat "$out/pml.yaml"
  printf "incident:\n  E: [\"0\", \"sin(6*(x - t))\", \"0\"]\n  H: [\"0\", \"0\", \"sin(6*(x - t))\"]\n"
  printf "tfsf: {box: {lower: [-0.25, -0.25, -0.25], upper: [0.25, 0.25, 0.25]}}\n"
  printf "probes:\n  every: 0.005\n  points:\n$probes"; } > "$out/full.yaml"
{ cat "$out/full.yaml"
  printf "monitors:\n  - name: box\n    surface: {box: {lower: [-0.4, -0.4, -0.4], upper: [0.4, 0.4, 0.4]}}\n    frequencies: [1, 2, 3]\n"; } > "$out/dft.yaml"
for kind in ${KINDS:-plain pml full dft}; do
  # time.final from the step count: dt is the same for both meshes (same cells)
  build-gpu/dgmax run "$out/$kind.yaml" --output "$out/run_$kind" --overwrite \
    --set "time.final=$(awk "BEGIN{print $steps * 0.3 * $h / ($N + 1)^2}")" 2>&1 | grep -E "dgmax: K|loop|error" | sed "s/^/$kind: /"
done
