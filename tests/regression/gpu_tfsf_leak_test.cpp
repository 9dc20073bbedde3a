// Total-field/scattered-field plane waves on the GPU (ctest label gpu; skipped without one): the
// field left outside the box (relative to the incident amplitude) for N = 2..5 on h = 1/8, and the
// incident-field error inside; both fall with N. Numbers are printed for bench/NOTES.md.
#include <gtest/gtest.h>

#include <cstdio>

#include "solver/backends/cuda/cuda_backend.hpp"
#include "solver/backends/cuda/cuda_driver.hpp"
#include "tfsf_leak.hpp"

using namespace dgmax;
using namespace dgmax::test;

TEST(GpuTfsfLeak, ScatteredRegionFallsWithN) {
  std::string why;
  if (!cuda::driver_available(&why)) GTEST_SKIP() << "no GPU: " << why;
  const auto cuda = [](const Problem& p, bool single) { return make_cuda_backend(p, single); };
  double previous = 1;
  for (int N = 2; N <= 5; ++N) {
    LeakCase c;
    c.N = N;
    c.half = 1;
    c.h = 0.125;
    c.box = 0.5;
    c.layer_cells = 3;
    c.s0 = -2.0;
    c.T = 3.0;
    const LeakResult r = measure_leak(c, cuda);
    std::printf("N = %d, h = 1/8 (K = %lld, %lld steps): outside %.3e, inside |u - u_inc| %.3e\n", N, r.K, r.steps,
                r.outside, r.inside);
    EXPECT_LT(r.outside, previous) << N;
    previous = r.outside;
  }
}
