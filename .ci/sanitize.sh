#!/usr/bin/env bash
# AddressSanitizer (+ LeakSanitizer) + UndefinedBehaviorSanitizer build of dgmax_core, the dgmax
# binary and the unit tests in ./build-asan, then the unit tests (ctest label unit/*; the slow
# regression and convergence suites are not run). Any sanitizer report fails its test: UB aborts
# (-fno-sanitize-recover=undefined), leaks fail the process at exit. Built with the host g++, the
# compiler the cpu backend's JIT also uses, so the JIT-compiled kernels (.so, not instrumented,
# dlopen'ed) share the test's OpenMP runtime. Extra arguments go to CMake. Log: build-asan.log.
set -euo pipefail
cd "$(dirname "$0")/.."
.ci/install-deps.sh
start=$(date +%s)
# without MPI: these are one-process tests, and OpenMPI's libraries bring their own leak reports.
# The kernels the tests compile (NVRTC, host JIT) are the release build's when it has run (CI runs
# it first): the same sources give the same cache keys, and compiling them again here took as long
# as the sanitized tests themselves.
cache=()
[ -d build/kernel-cache ] && cache=(-DDGMAX_TEST_CACHE_DIR="$PWD/build/kernel-cache")
# -O1 -g1 (ASan's recommended optimization, line tables for the reports) and a unity build (files
# compiled 8 at a time, so Eigen's and gtest's templates are instrumented once per batch): at -O2 -g,
# one file at a time, this build was CI's longest step (42 minutes on 2 cores, 2026-11-29; CI ran
# out of its 90). Now 19 minutes (clean clone, same machine).
flags="-O1 -g1 -DNDEBUG"
cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_UNITY_BUILD=ON -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="$flags" \
  -DCMAKE_C_FLAGS_RELWITHDEBINFO="$flags" -DDGMAX_SANITIZE=address,undefined -DDGMAX_USE_MPI=OFF \
  "${cache[@]}" "$@" > build-asan.log 2>&1 || { cat build-asan.log; exit 1; }
mapfile -t unit_tests < <(cmake --build build-asan --target help | grep -o 'test_unit_[A-Za-z0-9_]*' | sort -u)
cmake --build build-asan -j"$(nproc)" --target dgmax "${unit_tests[@]}" >> build-asan.log 2>&1 ||
  { tail -60 build-asan.log; exit 1; }
echo "sanitize: built dgmax and ${#unit_tests[@]} unit test executables in $(( $(date +%s) - start )) s"

# LSan suppressions: third-party leaks only (tests/fuzz/lsan.supp says which and why).
# protect_shadow_gap=0: the CUDA driver maps memory where ASan's shadow gap would be (gpu tests).
export ASAN_OPTIONS="detect_leaks=1:protect_shadow_gap=0:strict_string_checks=1:detect_stack_use_after_return=1:check_initialization_order=1"
export LSAN_OPTIONS="suppressions=$PWD/tests/fuzz/lsan.supp:print_suppressions=0"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
start=$(date +%s)
ctest --test-dir build-asan -L '^unit/' --output-on-failure -j2 --timeout 900
echo "sanitize: unit tests passed under ASan+UBSan in $(( $(date +%s) - start )) s"
