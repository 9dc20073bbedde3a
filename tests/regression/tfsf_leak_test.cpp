// Total-field/scattered-field plane waves in an empty domain on the cpu backend (small enough for
// CI): outside the box the field stays at the discretization-error level, inside it is the
// incident pulse, and both fall with N. The GPU measurement (N = 2..5 on h = 1/8) is in
// tests/regression/gpu_tfsf_leak_test.cpp.
#include <gtest/gtest.h>

#include <cstdio>

#include "solver/backends/cpu/cpu_backend.hpp"
#include "tfsf_leak.hpp"

using namespace dgmax;
using namespace dgmax::test;

TEST(TfsfLeak, ScatteredRegionStaysAtTheDiscretizationErrorAndFallsWithN) {
  const auto cpu = [](const Problem& p, bool single) { return make_cpu_backend(p, single); };
  double previous_out = 1, previous_in = 1;
  for (int N : {2, 3}) {
    LeakCase c;
    c.N = N;
    const LeakResult r = measure_leak(c, cpu);
    std::printf("N = %d, h = 1/4 (K = %lld, %lld steps): outside %.3e, inside |u - u_inc| %.3e\n", N, r.K, r.steps,
                r.outside, r.inside);
    EXPECT_LT(r.outside, 0.05) << N;
    EXPECT_LT(r.outside, 0.5 * previous_out) << N;
    EXPECT_LT(r.inside, 0.7 * previous_in) << N;
    previous_out = r.outside;
    previous_in = r.inside;
  }
}
