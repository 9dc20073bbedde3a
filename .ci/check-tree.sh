#!/usr/bin/env bash
# Fails when the repository tracks generated files (kernels, caches, simulation output, logs) or
# files over 512 KiB: they belong in the kernel cache or an output directory, never in git. Also
# fails when tracked text uses internal work counters instead of dates (.ci/check-words.sh).
# (bench/micro/ holds hand-written CUDA microbenchmarks, not generated kernels.)
set -euo pipefail
cd "$(dirname "$0")/.."
status=0
generated=$(git ls-files | grep -v '^bench/micro/' | grep -E '\.(cu|cubin|ptx|so|o|vtu|pvd|h5|tmp|log)$|(^|/)kernel-cache/|(^|/)out/' || true)
if [ -n "$generated" ]; then
  echo "check-tree: generated files are tracked (remove them; .gitignore covers them):"
  echo "$generated" | sed 's/^/  /'
  status=1
fi
large=$(git ls-files -z | xargs -0 -r du -b 2>/dev/null | awk '$1 > 524288 {print "  " $2 " (" $1 " bytes)"}')
if [ -n "$large" ]; then
  echo "check-tree: files over 512 KiB are tracked:"
  echo "$large"
  status=1
fi
# No internal work counters in tracked text: the checker's self-test, then the tree.
self_test=$(.ci/check-words.sh --self-test) || { echo "$self_test"; status=1; }
.ci/check-words.sh || status=1
exit $status
