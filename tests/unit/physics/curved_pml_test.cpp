// The perfectly matched layer around a domain with curved elements in its middle (a warp confined
// to a ball, solver/mesh/curved_warp.hpp: ball_warp): a divergence-free pulse starting on the
// curved elements leaves through the layer. The energy left once it has gone is small, and as small
// as on the straight-sided mesh (the same vacuum, the same layer).
#include <gtest/gtest.h>

#include <cmath>

#include "solver/backends/ref/ref_backend.hpp"
#include "solver/physics/norms.hpp"
#include "solver/physics/pml.hpp"
#include "solver/time/timestep.hpp"
#include "warped_config_problem.hpp"

using namespace dgmax;
using namespace dgmax::test;

namespace {

// [-0.625, 0.625]^3 in 5^3 cells, the outer cell the layer (inner box [-0.375, 0.375]^3), N = 2;
// E = (-y, x, 0) exp(-r²/w²) / w (divergence-free: nothing static stays), H = 0.
const char* kConfig = R"yaml(
mesh: {box: {lower: [-0.625, -0.625, -0.625], upper: [0.625, 0.625, 0.625], cells: [5, 5, 5]}}
discretization: {order: 2, precision: double, flux: upwind}
constants: {w: 0.2}
materials: {default: {eps: 1, mu: 1}}
boundaries: {default: pec}
pml: {thickness: 0.25}
initial:
  E: ["-y*exp(-(x*x + y*y + z*z)/(w*w))/w", "x*exp(-(x*x + y*y + z*z)/(w*w))/w", "0"]
  H: ["0", "0", "0"]
)yaml";

struct Left {
  double W0 = 0, half = 0, end = 0;  // energy at t = 0, t = 0.75 and t = 1.5
  int curved = 0, layer = 0;
};

Left run(bool warped) {
  const auto cp = warped_config_problem(kConfig, 2, warped ? ball_warp({0, 0, 0}, 0.17, 0.12) : Warp([](const Vec3& x) { return x; }));
  const Problem& p = cp->p;
  Left r;
  r.curved = p.curved ? p.curved->count() : 0;
  r.layer = static_cast<int>(p.pml->elements.size());
  RefBackend be(p);
  be.init_state();
  r.W0 = be.norms(0).energy;
  const StepPlan plan = plan_steps(1.5, stable_dt(p, 0.5));
  double t = 0;
  for (long long s = 0; s < plan.steps; ++s) {
    const double dt = s + 1 == plan.steps ? plan.dt_last : plan.dt;
    be.step(t, dt);
    t += dt;
    if (s + 1 == plan.steps / 2) r.half = be.norms(t).energy;
  }
  r.end = be.norms(t).energy;
  return r;
}

}  // namespace

TEST(CurvedPml, PulseLeavesAsOnTheStraightMesh) {
  const Left straight = run(false), warped = run(true);
  // measured (2026-12-06): W(0.75)/W0 = 0.179 / 0.177, W(1.5)/W0 = 0.0091 / 0.0094 (straight /
  // warped, 18 curved elements, 588 in the layer)
  EXPECT_EQ(straight.curved, 0);
  EXPECT_GE(warped.curved, 12);
  EXPECT_NEAR(warped.W0, straight.W0, 0.01 * straight.W0) << "the same pulse";
  for (const Left* r : {&straight, &warped}) {
    EXPECT_LT(r->half, 0.3 * r->W0) << "the pulse is leaving";
    EXPECT_LT(r->end, 0.015 * r->W0) << "the pulse has left";
  }
  EXPECT_LT(warped.end / warped.W0, 1.2 * straight.end / straight.W0) << "as little left as on the straight mesh";
}
