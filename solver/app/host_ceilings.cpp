#include "solver/app/host_ceilings.hpp"

#include "codegen/jit/host_jit.hpp"

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <vector>

namespace dgmax {
namespace {

double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

// The FMA rate the generated cpu kernels can reach: measured by code compiled with the same host
// JIT and flags as they are (-march=native: the host's widest vectors, and fused multiply-adds, which
// the kernels' operator products use through std::fma). Built into dgmax, this loop would only get
// the build's baseline instruction set, 4-16x below what the kernels run at (bench/NOTES.md).
// Independent chains per thread, 10 vectors' worth: enough to cover the FMA latency on two units.
constexpr const char* kFmaSource = R"(#include <cmath>
#ifdef __AVX512F__
enum { kVectorBytes = 64 };
#elif defined(__AVX__)
enum { kVectorBytes = 32 };
#else
enum { kVectorBytes = 16 };
#endif
template <class Real>
static double fma_chains(long iters) {
  constexpr int kChains = 10 * kVectorBytes / sizeof(Real);
  double sink = 0;
#pragma omp parallel reduction(+ : sink)
  {
    Real acc[kChains];
    for (int c = 0; c < kChains; ++c) acc[c] = Real(c) * Real(1e-3);
    const Real a = Real(0.999999), b = Real(1e-7);
    for (long i = 0; i < iters; ++i)
#pragma omp simd
      for (int c = 0; c < kChains; ++c) acc[c] = std::fma(acc[c], a, b);
    for (int c = 0; c < kChains; ++c) sink += acc[c];
  }
  return sink;
}
extern "C" int dgmax_fma_chains(int single) { return single ? 10 * kVectorBytes / 4 : 10 * kVectorBytes / 8; }
extern "C" double dgmax_fma_run(long iters, int single) { return single ? fma_chains<float>(iters) : fma_chains<double>(iters); }
)";

double fma_rate(bool single) {
  const auto lib = codegen::jit_compile(kFmaSource, "dgmax_fma_peak");
  const auto chains = reinterpret_cast<int (*)(int)>(lib->symbol("dgmax_fma_chains"));
  const auto run = reinterpret_cast<double (*)(long, int)>(lib->symbol("dgmax_fma_run"));
  const long iters = 2'000'000;
  double best = 0;
  for (int rep = 0; rep < 3; ++rep) {
    const double t0 = now();
    volatile double keep = run(iters, single ? 1 : 0);
    (void)keep;
    best = std::max(best, 2.0 * chains(single ? 1 : 0) * iters * omp_get_max_threads() / (now() - t0));
  }
  return best;
}

double copy_bandwidth() {
  const size_t n = 1 << 25;  // 256 MiB per array in double: well beyond the caches
  std::vector<double> a(n, 1.0), b(n, 0.0);
  double best = 0;
  for (int rep = 0; rep < 4; ++rep) {
    const double t0 = now();
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < n; ++i) b[i] = a[i];
    best = std::max(best, 2.0 * sizeof(double) * n / (now() - t0));
  }
  return best;
}

}  // namespace

Ceilings measure_host_ceilings(bool single) {
  return {copy_bandwidth(), fma_rate(single)};
}

}  // namespace dgmax
