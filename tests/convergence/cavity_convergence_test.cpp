// h- and p-convergence of the reference backend on the PEC cavity mode (exact in time). The
// measured L2 orders must reach N + 0.5 with the upwind flux; the table is printed so docs/verification.md
// can quote it (ctest -R Convergence -V).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

#include "cavity.hpp"
#include "simulate.hpp"

using namespace dgmax;
using namespace dgmax::test;

namespace {

// Final time short enough to keep the test quick, long enough for the time integrator to act
// (tens of steps); the time error is kept below the space error by the CFL number.
constexpr double kFinalTime = 0.25;

double cavity_error(int N, int cells) {
  Problem p = box_problem(unit_box(cells), N, 1.0);
  const auto r = simulate(p, cavity_mode(), kFinalTime, 0.25);
  const ErrorNorms e = error_norms(p, r.q, cavity_mode(), kFinalTime);
  return std::hypot(e.L2_E, e.L2_H);
}

}  // namespace

TEST(Convergence, CavityHRefinementReachesOrderNPlusHalf) {
  // meshes of cells^3 boxes (6 tets per cell); finer pairs for low N where the asymptotic range
  // starts later, coarser for high N where the error would otherwise hit round-off
  struct Case {
    int N, coarse, fine;
  };
  const Case cases[] = {{1, 4, 8}, {2, 2, 4}, {3, 2, 4}, {4, 1, 2}, {5, 1, 2}};
  std::printf("\n  N   h          L2 error(E,H)   h/2        L2 error(E,H)   order\n");
  for (const auto& c : cases) {
    const double e1 = cavity_error(c.N, c.coarse), e2 = cavity_error(c.N, c.fine);
    const double order = std::log(e1 / e2) / std::log(static_cast<double>(c.fine) / c.coarse);
    std::printf("  %d   1/%-8d %-15.4e 1/%-8d %-15.4e %.2f\n", c.N, c.coarse, e1, c.fine, e2, order);
    EXPECT_GE(order, c.N + 0.5) << "N = " << c.N;
  }
}

TEST(Convergence, CavityPRefinementIsSpectral) {
  std::printf("\n  N   L2 error on the 2x2x2 box\n");
  double prev = 0;
  for (int N = 1; N <= 6; ++N) {
    const double e = cavity_error(N, 2);
    std::printf("  %d   %.4e\n", N, e);
    if (N > 1) {
      EXPECT_LT(e, prev / 4) << "N = " << N;  // each order gains at least a factor 4
    }
    prev = e;
  }
}
