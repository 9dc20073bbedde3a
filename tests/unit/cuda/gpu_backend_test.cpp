// The cuda backend on a GPU (ctest label gpu; skipped with a message without one): right-hand
// sides against the ref backend on random states with every boundary condition, heterogeneous
// materials, sources and incident fields, N = 1..8, fp64 (≤ 1e-12) and fp32 (≤ 1e-5); the cavity
// converges with the same orders as on the CPU; repeated runs are bitwise identical.
#include <gtest/gtest.h>

#include <cmath>

#include "cavity_run.hpp"
#include "mixed_problem.hpp"
#include "simulate.hpp"
#include "solver/backends/cuda/cuda_backend.hpp"
#include "solver/backends/cuda/cuda_driver.hpp"

using namespace dgmax;
using namespace dgmax::test;

namespace {

class GpuBackend : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string why;
    if (!cuda::driver_available(&why)) GTEST_SKIP() << "no GPU: " << why;
  }
};

double rhs_difference(const Problem& p, bool single, unsigned seed) {
  return rhs_difference_to_ref(p, *make_cuda_backend(p, single), seed);
}

double cavity_error(int N, int cells, bool single) {
  const Problem p = box_problem(unit_box(cells), N, 1.0);
  return dgmax::test::cavity_error(p, *make_cuda_backend(p, single));
}

}  // namespace

TEST_F(GpuBackend, Fp64MatchesRefForAllOrdersFluxesAndBoundaries) {
  for (int N = 1; N <= 8; ++N) {
    const double d = rhs_difference(mixed_problem(N, 10 + N), false, N);
    std::cout << "N = " << N << ": cuda (fp64) vs ref, max relative RHS difference " << d << "\n";
    EXPECT_LE(d, 1e-12) << "N = " << N;
  }
  const std::pair<const char*, double> fluxes[] = {{"central", 0.0}, {"alpha", 0.3}};
  for (const auto& [name, alpha] : fluxes)
    EXPECT_LE(rhs_difference(mixed_problem(3, 5, name, alpha), false, 3), 1e-12) << name;
}

TEST_F(GpuBackend, Fp32MatchesRefForAllOrders) {
  for (int N = 1; N <= 8; ++N) {
    const double d = rhs_difference(mixed_problem(N, 20 + N), true, N);
    std::cout << "N = " << N << ": cuda (fp32) vs ref, max relative RHS difference " << d << "\n";
    EXPECT_LE(d, 1e-5) << "N = " << N;
  }
}

TEST_F(GpuBackend, CavityConvergesLikeOnTheCpu) {
  struct Case {
    int N, coarse, fine;
  };
  for (const Case c : {Case{2, 2, 4}, Case{3, 2, 4}, Case{4, 1, 2}}) {
    const double e1 = cavity_error(c.N, c.coarse, false), e2 = cavity_error(c.N, c.fine, false);
    const double order = std::log(e1 / e2) / std::log(static_cast<double>(c.fine) / c.coarse);
    std::cout << "N = " << c.N << ": cuda cavity errors " << e1 << " -> " << e2 << ", order " << order << "\n";
    EXPECT_GE(order, c.N + 0.5);
  }
}

TEST_F(GpuBackend, RepeatedRunsAreBitwiseIdentical) {
  Problem p = mixed_problem(5, 3);
  const Fields q = random_state(p, 9);
  auto run = [&]() {
    auto gpu = make_cuda_backend(p, false);
    gpu->set_state(q);
    for (int s = 0; s < 10; ++s) gpu->step(0.01 * s, 1e-3);
    Fields out;
    gpu->get_state(out);
    return out;
  };
  const Fields a = run(), b = run();
  ASSERT_EQ(a.q.size(), b.q.size());
  size_t differ = 0;
  for (size_t i = 0; i < a.q.size(); ++i) differ += a.q[i] != b.q[i];
  EXPECT_EQ(differ, 0u);
}

TEST_F(GpuBackend, StepsMatchTheCpuBackend) {
  Problem p = mixed_problem(4, 7);
  const Fields q = random_state(p, 2);
  RefBackend ref(p);
  auto gpu = make_cuda_backend(p, false);
  ref.set_state(q);
  gpu->set_state(q);
  for (int s = 0; s < 5; ++s) {
    ref.step(0.01 * s, 1e-3);
    gpu->step(0.01 * s, 1e-3);
  }
  Fields a, b;
  ref.get_state(a);
  gpu->get_state(b);
  EXPECT_LE(relative_difference(b, a), 1e-12);
}
