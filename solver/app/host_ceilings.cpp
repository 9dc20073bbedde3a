#include "solver/app/host_ceilings.hpp"

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <vector>

namespace dgmax {
namespace {

double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

// Independent FMA chains per thread, long enough to hide latency; the result is kept live.
template <class Real>
double fma_rate() {
  constexpr int kChains = 32;
  const long iters = 4'000'000;
  double best = 0;
  for (int rep = 0; rep < 3; ++rep) {
    double sink = 0;
    const double t0 = now();
#pragma omp parallel reduction(+ : sink)
    {
      Real acc[kChains];
      for (int c = 0; c < kChains; ++c) acc[c] = Real(c) * Real(1e-3);
      const Real a = Real(0.999999), b = Real(1e-7);
      for (long i = 0; i < iters; ++i)
#pragma omp simd
        for (int c = 0; c < kChains; ++c) acc[c] = acc[c] * a + b;
      for (int c = 0; c < kChains; ++c) sink += acc[c];
    }
    const double dt = now() - t0;
    volatile double keep = sink;
    (void)keep;
    best = std::max(best, 2.0 * kChains * iters * omp_get_max_threads() / dt);
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
  return {copy_bandwidth(), single ? fma_rate<float>() : fma_rate<double>()};
}

}  // namespace dgmax
