#include "solver/app/host_ceilings.hpp"

#include "codegen/jit/host_jit.hpp"

#include <fmt/format.h>

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <vector>

namespace dgmax {
namespace {

double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

// The FMA rate the generated cpu kernels can reach: measured by code compiled with the same host
// JIT and flags as they are (-march=native: the host's widest vectors, and fused multiply-adds, which
// the kernels' operator products use). Built into dgmax, this loop would only get the build's
// baseline instruction set, 4-16x below what the kernels run at (bench/NOTES.md). The loop is
// written with the widest vector FMA intrinsics the flags allow, 12 independent chains in
// registers: a plain loop of std::fma was left 256 bits wide with its accumulators in memory by
// GCC 13 on an AVX-512 Xeon, a quarter of the peak (bench/NOTES.md, 2026-11-25).
constexpr const char* kFmaSource = R"(#include <immintrin.h>
#include <cmath>
#include <cstring>
// vd, vf: the widest vectors of double and float; vfma, vset: their FMA and broadcast (BITS: the
// width in the intrinsics' names, _mm512_fmadd_pd and so on)
#define VECTOR_OPS(BITS)                                                                          \
  typedef __m##BITS##d vd;                                                                        \
  typedef __m##BITS vf;                                                                           \
  static inline vd vfma(vd a, vd b, vd c) { return _mm##BITS##_fmadd_pd(a, b, c); }              \
  static inline vf vfma(vf a, vf b, vf c) { return _mm##BITS##_fmadd_ps(a, b, c); }              \
  static inline void vset(vd& v, double x) { v = _mm##BITS##_set1_pd(x); }                       \
  static inline void vset(vf& v, float x) { v = _mm##BITS##_set1_ps(x); }
#if defined(__AVX512F__)
VECTOR_OPS(512)
#elif defined(__FMA__) && defined(__AVX__)
VECTOR_OPS(256)
#else
typedef double vd;
typedef float vf;
static inline vd vfma(vd a, vd b, vd c) { return std::fma(a, b, c); }
static inline vf vfma(vf a, vf b, vf c) { return std::fma(a, b, c); }
static inline void vset(vd& v, double x) { v = x; }
static inline void vset(vf& v, float x) { v = x; }
#endif
enum { kChains = 12 };
template <class V, class Real>
static double fma_chains(long iters) {
  double sink = 0;
#pragma omp parallel reduction(+ : sink)
  {
    V a, b, c0, c1, c2, c3, c4, c5, c6, c7, c8, c9, c10, c11;
    vset(a, Real(0.999999));
    vset(b, Real(1e-7));
    V* c[kChains] = {&c0, &c1, &c2, &c3, &c4, &c5, &c6, &c7, &c8, &c9, &c10, &c11};
    for (int k = 0; k < kChains; ++k) vset(*c[k], Real(k) * Real(1e-3));
    for (long i = 0; i < iters; ++i) {
      c0 = vfma(c0, a, b); c1 = vfma(c1, a, b); c2 = vfma(c2, a, b); c3 = vfma(c3, a, b);
      c4 = vfma(c4, a, b); c5 = vfma(c5, a, b); c6 = vfma(c6, a, b); c7 = vfma(c7, a, b);
      c8 = vfma(c8, a, b); c9 = vfma(c9, a, b); c10 = vfma(c10, a, b); c11 = vfma(c11, a, b);
    }
    for (int k = 0; k < kChains; ++k) {
      Real lanes[sizeof(V) / sizeof(Real)];
      std::memcpy(lanes, c[k], sizeof(V));
      for (Real x : lanes) sink += x;
    }
  }
  return sink;
}
// fused multiply-adds per iteration and thread
extern "C" int dgmax_fma_chains(int single) { return kChains * (single ? sizeof(vf) / 4 : sizeof(vd) / 8); }
extern "C" double dgmax_fma_run(long iters, int single) {
  return single ? fma_chains<vf, float>(iters) : fma_chains<vd, double>(iters);
}
)";

double fma_rate(bool single) {
  const auto lib = codegen::jit_compile(kFmaSource, "dgmax_fma_peak");
  const auto chains = reinterpret_cast<int (*)(int)>(lib->symbol("dgmax_fma_chains"));
  const auto run = reinterpret_cast<double (*)(long, int)>(lib->symbol("dgmax_fma_run"));
  // the best of many short runs (a few ms each): on a loaded machine some run without interruption
  const long iters = 2'000'000;
  double best = 0;
  for (int rep = 0; rep < 12; ++rep) {
    const double t0 = now();
    volatile double keep = run(iters, single ? 1 : 0);
    (void)keep;
    best = std::max(best, 2.0 * chains(single ? 1 : 0) * iters * omp_get_max_threads() / (now() - t0));
  }
  return best;
}

// The memory bandwidth the stage can use: the best of a copy b = a (counted as 2 words a value) and
// an in-place update a = a + s·b (3 words: the stage's res = a·res + dt·r pattern). On hosts that
// read a line before writing it (write-allocate) the copy moves 3 words for the 2 counted, so alone
// it read 1/3 low and the stage printed up to 127% of its floor (bench/NOTES.md, "cpu: the host's
// memory ceiling counts what a write costs"). The arrays are first touched by the threads that
// stream them (their NUMA node).
double stream_bandwidth() {
  const size_t n = 1 << 25;  // 256 MiB per array in double: well beyond the caches
  std::unique_ptr<double[]> a(new double[n]), b(new double[n]);
#pragma omp parallel for schedule(static)
  for (size_t i = 0; i < n; ++i) a[i] = 1.0, b[i] = 0.5;
  double best = 0;
  for (int rep = 0; rep < 6; ++rep) {
    double t0 = now();
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < n; ++i) b[i] = a[i];
    best = std::max(best, 2.0 * sizeof(double) * n / (now() - t0));
    t0 = now();
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < n; ++i) a[i] += 1e-9 * b[i];
    best = std::max(best, 3.0 * sizeof(double) * n / (now() - t0));
  }
  return best;
}

}  // namespace

Ceilings measure_host_ceilings(bool single) {
  return {stream_bandwidth(), fma_rate(single)};
}

double ceilings_moved(const Ceilings& a, const Ceilings& b) {
  const auto moved = [](double x, double y) { return std::max(x, y) / std::min(x, y) - 1; };
  return std::max(moved(a.bandwidth, b.bandwidth), moved(a.flops, b.flops));
}

std::string ceilings_again_line(const Ceilings& before, const Ceilings& after, const std::string& when) {
  const double moved = ceilings_moved(before, after);
  return fmt::format("host ceilings {}: memory bandwidth {:.1f} GB/s, FMA rate {:.1f} GFLOP/s{}", when,
                     after.bandwidth / 1e9, after.flops / 1e9,
                     moved > kCeilingsMovedNote ? fmt::format(" (moved by {:.0f}% since the first reading: the % of the "
                                                              "floor above is uncertain by about as much)",
                                                              100 * moved)
                                                : "");
}

}  // namespace dgmax
