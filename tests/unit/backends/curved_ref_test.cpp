// The reference backend on curved elements (a box warped inside, its faces kept: curved_box.hpp):
// free-stream preservation and accuracy against the box's exact cavity mode. (Energy: the
// collocated form is not energy stable, bench/NOTES.md "2026-12-06 — Curved elements: the
// collocated form is accurate but not energy stable"; runs refuse curved meshes until it is.)
#include <gtest/gtest.h>

#include <cmath>

#include "cavity.hpp"
#include "curved_box.hpp"

using namespace dgmax;
using namespace dgmax::test;

namespace {
FieldFn constant_field() {
  return [](size_t n, const double*, const double*, const double*, double, double* const* out) {
    const double c[6] = {0.3, -1.2, 0.7, 2.0, 0.1, -0.4};
    for (int m = 0; m < 6; ++m)
      for (size_t i = 0; i < n; ++i) out[m][i] = c[m];
  };
}
}  // namespace

TEST(CurvedRef, ConstantFieldIsAFreeStream) {
  // periodic in every direction: a constant field is an exact steady state
  for (int q = 2; q <= 4; ++q) {
    BoxSpec spec;
    spec.cells = {2, 2, 2};
    spec.periodic = {true, true, true};
    for (double alpha : {0.0, 1.0}) {
      Problem p = warped_box_problem(spec, std::max(q, 3), q, 0.12, alpha);
      ASSERT_TRUE(p.curved && p.curved->count() == p.K());
      RefBackend be(p);
      Fields q0, r;
      interpolate(p, constant_field(), 0, q0);
      be.rhs(q0, 0.0, r);
      double worst = 0;
      for (double v : r.q) worst = std::max(worst, std::abs(v));
      EXPECT_LT(worst, 1e-11) << "q = " << q << ", alpha = " << alpha;
    }
  }
}

TEST(CurvedRef, CavityModeErrorFallsAtOrderNPlusHalf) {
  std::printf("\n  N  q   L2 error 2^3 cells   4^3 cells   order\n");
  for (int N = 2; N <= 3; ++N) {
    double e[2];
    for (int i = 0; i < 2; ++i) {
      Problem p = warped_box_problem(unit_box(2 << i), N, N, 0.1, 1.0);
      const auto r = simulate(p, cavity_mode(), 0.25, 0.25);
      const ErrorNorms en = error_norms(p, r.q, cavity_mode(), 0.25);
      e[i] = std::hypot(en.L2_E, en.L2_H);
    }
    const double order = std::log2(e[0] / e[1]);
    std::printf("  %d  %d   %.4e           %.4e  %.2f\n", N, N, e[0], e[1], order);
    EXPECT_GE(order, N + 0.5) << "N = " << N;
  }
}
