#!/usr/bin/env bash
# Builds the libFuzzer targets (tests/fuzz, clang, ASan+UBSan) in ./build-fuzz and fuzzes each
# for a short while from its seed corpus (generated from configs/ and tests/data) plus its saved
# regression inputs. Fails on any finding: a crash, sanitizer report, leak, timeout, out-of-memory
# or an exception other than UserError; the input is left in build-fuzz/findings/.
#   DGMAX_FUZZ_SECONDS   seconds per target (default 60)
#   DGMAX_FUZZ_RUNS      inputs per target instead (then the run is reproducible: with the seed
#                        below the same inputs are tried on every machine; SECONDS stays a cap)
#   DGMAX_FUZZ_SEED      libFuzzer's -seed (default 1 with DGMAX_FUZZ_RUNS, else random)
#   DGMAX_FUZZ_TARGETS   which targets, e.g. "expression flux" (default: all that were built)
#   DGMAX_FUZZ_CC, DGMAX_FUZZ_CXX   the compiler (default clang-16: clang 14 cannot compile dgmax's
#                        C++20, e.g. lambdas capturing structured bindings; Debian 12 packages it)
# Extra arguments go to CMake. Long campaigns: tests/fuzz/README.md.
set -euo pipefail
cd "$(dirname "$0")/.."
.ci/install-deps.sh
seconds=${DGMAX_FUZZ_SECONDS:-60}
limit=()
if [ -n "${DGMAX_FUZZ_RUNS:-}" ]; then limit=(-runs="$DGMAX_FUZZ_RUNS" -seed="${DGMAX_FUZZ_SEED:-1}")
elif [ -n "${DGMAX_FUZZ_SEED:-}" ]; then limit=(-seed="$DGMAX_FUZZ_SEED"); fi
start=$(date +%s)
# -O1 -g1: libFuzzer's usual optimization and line tables for the reports; the same flags cut the
# g++ sanitized build's time per file to 55% of -O2 -g (.ci/sanitize.sh), and CI has 90 minutes for
# all its steps. The run is a fixed number of inputs, so a slower target only takes longer.
flags="-O1 -g1 -DNDEBUG"
CC=${DGMAX_FUZZ_CC:-clang-16} CXX=${DGMAX_FUZZ_CXX:-clang++-16} cmake -S . -B build-fuzz -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="$flags" -DCMAKE_C_FLAGS_RELWITHDEBINFO="$flags" \
  -DDGMAX_SANITIZE=address,undefined -DDGMAX_FUZZ=ON -DDGMAX_BUILD_TESTS=OFF \
  -DDGMAX_USE_CUDA=OFF -DDGMAX_USE_VTK=OFF -DDGMAX_USE_MPI=OFF "$@" > build-fuzz.log 2>&1 || { cat build-fuzz.log; exit 1; }
mapfile -t targets < <(cmake --build build-fuzz --target help | grep -o 'fuzz_[a-z_]*' | grep -v '^fuzz_corpus$' | sort -u)
if [ -n "${DGMAX_FUZZ_TARGETS:-}" ]; then
  read -r -a wanted <<< "$DGMAX_FUZZ_TARGETS"
  targets=("${wanted[@]/#/fuzz_}")
fi
cmake --build build-fuzz -j"$(nproc)" --target fuzz_corpus "${targets[@]}" >> build-fuzz.log 2>&1 ||
  { tail -60 build-fuzz.log; exit 1; }
echo "fuzz: built ${targets[*]} in $(( $(date +%s) - start )) s"

export ASAN_OPTIONS="detect_leaks=1:strict_string_checks=1"
export LSAN_OPTIONS="suppressions=$PWD/tests/fuzz/lsan.supp:print_suppressions=0"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
export OMP_NUM_THREADS=1
for s in llvm-symbolizer-16 llvm-symbolizer; do  # symbolized stacks in reports (addr2line otherwise)
  if command -v "$s" > /dev/null; then export ASAN_SYMBOLIZER_PATH=$(command -v "$s"); break; fi
done
rm -rf build-fuzz/findings build-fuzz/fuzz-work
mkdir -p build-fuzz/findings
status=0
for t in "${targets[@]}"; do
  name=${t#fuzz_}
  work=build-fuzz/fuzz-work/$name   # new inputs go here; the seeds stay as generated
  mkdir -p "$work"
  dirs=("$work" build-fuzz/tests/fuzz/corpus/"$name")
  [ -d tests/fuzz/regressions/"$name" ] && dirs+=(tests/fuzz/regressions/"$name")
  [ "$name" = msh_reader ] && dirs+=(tests/fuzz/regressions/msh)  # the .msh findings are its inputs too
  dict=()
  case $name in
    expression|flux) dict=(-dict=tests/fuzz/expression.dict) ;;
    config) dict=(-dict=tests/fuzz/yaml.dict) ;;
    msh|msh_reader) dict=(-dict=tests/fuzz/msh.dict) ;;
  esac
  if build-fuzz/"$t" -max_total_time="$seconds" "${limit[@]}" -timeout=10 -rss_limit_mb=2048 -max_len=8192 \
       "${dict[@]}" -print_final_stats=1 -artifact_prefix=build-fuzz/findings/"$name"- \
       "${dirs[@]}" > build-fuzz/"$t".log 2>&1; then
    runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' build-fuzz/"$t".log | grep -o '[0-9]*$' || echo '?')
    echo "fuzz: $t: $runs inputs${limit:+ (${limit[*]})}, no findings"
  else
    echo "fuzz: $t: FINDING (log build-fuzz/$t.log, input in build-fuzz/findings/):"
    grep -E 'ERROR|SUMMARY|finding|==[0-9]+==|#[0-9]+ 0x' build-fuzz/"$t".log | head -40 || tail -40 build-fuzz/"$t".log
    status=1
  fi
done
exit $status
