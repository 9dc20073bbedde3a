#!/usr/bin/env bash
# cpu plans side by side on one host: the default plan and the given ones alternated run by run,
# ROUNDS times, in one build (on a shared host whose ceilings move from run to run, alternation
# inside one job is what makes two plans comparable; bench/NOTES.md, "the cpu stage on the 16-core
# host: `tu` measured").
#   CPU_PLANS_DOUBLE="f1.w8.c0.v512.fma.tu ..." CPU_PLANS_SINGLE="..." bench/cpu_plan_ab.sh ORDERS [ROUNDS] [ELEMENTS]
#   e.g. CPU_PLANS_DOUBLE=f1.w8.c0.v512.fma.h3 CPU_PLANS_SINGLE= bench/cpu_plan_ab.sh 3..4 4
# Builds build-gpu/dgmax if it is missing (VTK and Gmsh off, as on the GPU machine). OpenMP on every
# core, threads bound to cores. Prints one line per run, then the median GDOF/s per precision, order
# and plan with its ratio to the default's median. Raw output in $OUT/cpu_plan_ab.txt (or out/).
# AB_PRECISIONS="single" runs one precision only (default: double single).
set -uo pipefail
cd "$(dirname "$0")/.."
orders=$1
rounds=${2:-4}
elements=${3:-384000}
out=${OUT:-out}
mkdir -p "$out"
if [ ! -x build-gpu/dgmax ]; then
  (cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DDGMAX_USE_VTK=OFF -DDGMAX_USE_GMSH=OFF &&
    cmake --build build-gpu -j"$(nproc)" --target dgmax) > "$out/cpu_plan_ab_build.log" 2>&1 ||
    { tail -20 "$out/cpu_plan_ab_build.log"; exit 1; }
fi
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-$(nproc)} OMP_PROC_BIND=close OMP_PLACES=cores
export DGMAX_CACHE_DIR=${DGMAX_CACHE_DIR:-$PWD/build-gpu/kernel-cache}
lines=$(mktemp)
for r in $(seq "$rounds"); do
  for p in ${AB_PRECISIONS:-double single}; do
    if [ $p = double ]; then plans=${CPU_PLANS_DOUBLE-}; else plans=${CPU_PLANS_SINGLE-}; fi
    for plan in default $plans; do
      if [ "$plan" = default ]; then unset DGMAX_CPU_PLAN; else export DGMAX_CPU_PLAN=$plan; fi
      text=$(build-gpu/dgmax bench --order "$orders" --elements "$elements" --backends cpu --precision $p --json "" 2>&1)
      echo "$text" >> "$out/cpu_plan_ab.txt"
      grep -E "^ +[0-9]+ +[0-9]+ +cpu" <<<"$text" | awk -v r="$r" -v p=$p -v plan="$plan" \
        '{printf "r%s %s %s N=%s %s ms %s GDOF/s\n", r, p, plan, $1, $4, $5}' | tee -a "$lines"
      grep -q -E "^ +[0-9]+ +[0-9]+ +cpu" <<<"$text" || echo "r$r $p $plan FAILED: $(tail -2 <<<"$text" | tr '\n' ' ')"
    done
  done
done
unset DGMAX_CPU_PLAN
echo "medians (GDOF/s; ratio to the default's median):"
sort -k2,2 -k4,4 -k3,3 "$lines" | awk '
  { key = $2 " " $4 " " $3; v[key] = v[key] " " $7; order[key] = $2 " " $4 }
  END {
    for (k in v) {
      n = split(substr(v[k], 2), a, " ")
      for (i = 2; i <= n; i++) { x = a[i] + 0; for (j = i - 1; j >= 1 && a[j] + 0 > x; j--) a[j + 1] = a[j]; a[j + 1] = x }
      med[k] = n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
    }
    for (k in med) { split(k, f, " "); if (f[3] == "default") base[f[1] " " f[2]] = med[k] }
    for (k in med) { split(k, f, " "); b = base[f[1] " " f[2]]
      printf "%s %s %-28s %6.3f  %s\n", f[1], f[2], f[3], med[k], b ? sprintf("%.3fx", med[k] / b) : "-" }
  }' | sort
rm -f "$lines"
