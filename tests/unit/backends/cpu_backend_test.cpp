// The generated cpu backend against the ref backend: right-hand sides on random states with
// every boundary condition, heterogeneous materials, sources and incident fields, N = 1..8,
// double and single precision, to a small multiple of what docs/user-guide.md states (~2e-16 and ~5e-7
// relative; measured 1.0-2.2e-16 and 1.6-5.3e-7 for N = 1..8); and whole runs.
#include <gtest/gtest.h>

#include "cavity.hpp"
#include "codegen/jit/host_jit.hpp"
#include "mixed_problem.hpp"
#include "simulate.hpp"
#include "solver/backends/cpu/cpu_backend.hpp"

using namespace dgmax;
using namespace dgmax::test;

namespace {

// A few times the user guide's figures: an error of one ulp in a kernel constant or one operation
// done in the wrong precision shows, while the order of summation does not.
constexpr double kDoubleTol = 1e-15, kSingleTol = 2e-6;

double rhs_difference(const Problem& p, bool single, unsigned seed) {
  return rhs_difference_to_ref(p, *make_cpu_backend(p, single), seed);
}

}  // namespace

TEST(CpuBackend, DoubleMatchesRefForAllOrders) {
  for (int N = 1; N <= 8; ++N) {
    const double d = rhs_difference(mixed_problem(N, 10 + N), false, N);
    std::cout << "N = " << N << ": cpu (double) vs ref, max relative RHS difference " << d << "\n";
    EXPECT_LE(d, kDoubleTol) << "N = " << N;
  }
}

TEST(CpuBackend, SingleMatchesRefForAllOrders) {
  for (int N = 1; N <= 8; ++N) {
    const double d = rhs_difference(mixed_problem(N, 20 + N), true, N);
    std::cout << "N = " << N << ": cpu (single) vs ref, max relative RHS difference " << d << "\n";
    EXPECT_LE(d, kSingleTol) << "N = " << N;
  }
}

TEST(CpuBackend, EveryBuiltInFlux) {
  const std::pair<const char*, double> fluxes[] = {{"central", 0.0}, {"alpha", 0.3}, {"upwind", 1.0}};
  for (const auto& [name, alpha] : fluxes) {
    EXPECT_LE(rhs_difference(mixed_problem(3, 5, name, alpha), false, 3), kDoubleTol) << name;
    EXPECT_LE(rhs_difference(mixed_problem(3, 6, name, alpha), true, 4), kSingleTol) << name;
  }
}

TEST(CpuBackend, StepsMatchRefOnTheCavity) {
  Problem p = box_problem(unit_box(2), 4, 1.0);
  Fields q0;
  interpolate(p, cavity_mode(), 0, q0);
  RefBackend ref(p);
  auto cpu = make_cpu_backend(p, false);
  ref.set_state(q0);
  cpu->set_state(q0);
  const double dt = stable_dt(p, 0.5);
  for (int s = 0; s < 20; ++s) {
    ref.step(s * dt, dt);
    cpu->step(s * dt, dt);
  }
  Fields a, b;
  ref.get_state(a);
  cpu->get_state(b);
  EXPECT_LE(relative_difference(b, a), 1e-12);
}

TEST(CpuBackend, SecondSetupHitsTheKernelCache) {
  Problem p = box_problem(unit_box(1), 2, 1.0);
  make_cpu_backend(p, false);
  const int compiled = codegen::jit_stats().compiled;
  make_cpu_backend(p, false);
  EXPECT_EQ(codegen::jit_stats().compiled, compiled);
}
