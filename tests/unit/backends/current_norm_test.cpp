// ||J/sqrt(eps)||, the source power the energy guard integrates: the generated cpu backend's
// norms() against the host's quadrature and against an analytic value (the reliability checks).
#include <gtest/gtest.h>

#include <cmath>

#include "mixed_problem.hpp"
#include "solver/backends/cpu/cpu_backend.hpp"
#include "solver/mesh/box.hpp"

using namespace dgmax;

TEST(CurrentNorm, CpuBackendMatchesTheHostQuadrature) {
  for (const int N : {1, 3}) {
    Problem p = test::mixed_problem(N, 7);
    for (const bool single : {false, true}) {
      auto be = make_cpu_backend(p, single);
      be->init_state();
      for (const double t : {0.0, 0.4}) {
        const double host = current_norm(p, p.current.eval, t);
        ASSERT_GT(host, 0);
        // J is evaluated in double in both precisions: the summation order differs, and single
        // precision stores eps as a float (1e-8 relative)
        EXPECT_NEAR(be->norms(t).current, host, (single ? 1e-7 : 1e-12) * host) << "N = " << N << " single = " << single << " t = " << t;
      }
    }
  }
}

// J = (0, 0, 1) on the unit cube with eps = 2: ||J/sqrt(eps)||² = 1/2, exactly (a constant is in
// the basis and the mass matrices integrate it exactly).
TEST(CurrentNorm, ConstantCurrentOnTheUnitCube) {
  BoxSpec s;
  s.cells = {2, 2, 2};
  auto md = std::make_shared<const MeshData>(setup_mesh(make_box_mesh(s)));
  Problem p = make_problem(md, 2);
  for (auto& m : p.material) m.eps = 2;
  p.current = space_time_field_from_text({"0", "0", "1"}, "sources.J");
  auto be = make_cpu_backend(p, false);
  be->init_state();
  EXPECT_NEAR(be->norms(0).current, std::sqrt(0.5), 1e-13);
  EXPECT_NEAR(current_norm(p, p.current.eval, 0), std::sqrt(0.5), 1e-13);
  // without a current: zero
  Problem q = make_problem(md, 2);
  auto bq = make_cpu_backend(q, false);
  bq->init_state();
  EXPECT_EQ(bq->norms(0).current, 0.0);
}
