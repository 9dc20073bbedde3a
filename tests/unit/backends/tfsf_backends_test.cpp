// Total-field/scattered-field faces on the generated cpu backend against the ref backend (which
// shifts the exterior trace by the incident field in its flux loop, an independent route to the
// same correction): the right-hand side on a random state and 20 steps, with a PML around and a
// current source inside, in double and single precision.
#include <gtest/gtest.h>

#include "config_problem.hpp"
#include "mixed_problem.hpp"
#include "solver/backends/cpu/cpu_backend.hpp"
#include "solver/backends/ref/ref_backend.hpp"
#include "solver/physics/tfsf.hpp"
#include "solver/time/timestep.hpp"

namespace dgmax {
namespace {

const char* kConfig = R"y(
mesh:
  box: {lower: [-0.75, -0.75, -0.75], upper: [0.75, 0.75, 0.75], cells: [6, 6, 6], pml: 0.25}
discretization: {order: 3, flux: upwind}
materials: {default: {eps: 1, mu: 1}, pml: {eps: 1.5, mu: 1}}
sources:
  J: ["0", "exp(-(x^2 + y^2 + z^2)/0.05)*sin(3*t)", "0"]
incident:
  E: ["0", "sin(4*(x - t))*exp(-(x - t)^2)", "0.5*cos(3*(x - t))"]
  H: ["0", "-0.5*cos(3*(x - t))", "sin(4*(x - t))*exp(-(x - t)^2)"]
tfsf: {box: {lower: [-0.25, -0.25, -0.5], upper: [0.25, 0.5, 0.25]}}
pml: {kappa: 2}
)y";

TEST(TfsfBackends, SurfaceIsTheBoxFaces) {
  const auto c = test::config_problem(kConfig);
  ASSERT_TRUE(c->p.tfsf);
  // box 2 x 3 x 3 cells of 1/4: 2 (2*3 + 2*3 + 3*3) = 42 cell faces, 2 triangles each
  EXPECT_EQ(c->p.tfsf->faces, 84);
  int plus = 0, minus = 0;
  for (auto s : c->p.tfsf->sign) plus += s > 0, minus += s < 0;
  EXPECT_EQ(plus, 84);
  EXPECT_EQ(minus, 84);
}

TEST(TfsfBackends, CpuMatchesRef) {
  for (const bool single : {false, true}) {
    const auto c = test::config_problem(kConfig);
    const Problem& p = c->p;
    auto cpu = make_cpu_backend(p, single);
    const double tol = single ? 2e-5 : 1e-12;
    EXPECT_LE(test::rhs_difference_to_ref(p, *cpu, 5), tol) << (single ? "fp32 rhs" : "fp64 rhs");
    RefBackend ref(p);
    const Fields q0 = test::random_state(p, 9);
    ref.set_state(q0);
    cpu->set_state(q0);
    const double dt = stable_dt(p, 0.5);
    for (int s = 0; s < 20; ++s) ref.step(s * dt, dt), cpu->step(s * dt, dt);
    Fields qr, qc;
    ref.get_state(qr);
    cpu->get_state(qc);
    EXPECT_LE(test::relative_difference(qc, qr), 10 * tol) << (single ? "fp32 steps" : "fp64 steps");
  }
}

// Without the box the same run differs: the correction is really applied.
TEST(TfsfBackends, TheBoxChangesTheRightHandSide) {
  const auto with = test::config_problem(kConfig);
  std::string text = kConfig;
  text.erase(text.find("tfsf:"), text.find("pml:") - text.find("tfsf:"));
  const auto without = test::config_problem(text);
  const Fields q = test::random_state(with->p, 2);
  Fields a, b;
  RefBackend(with->p).rhs(q, 0.3, a);
  RefBackend(without->p).rhs(q, 0.3, b);
  EXPECT_GT(test::relative_difference(a, b), 1e-3);
}

}  // namespace
}  // namespace dgmax
