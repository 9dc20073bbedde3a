// The perfectly matched layer and a total-field/scattered-field box on the GPU (ctest label gpu;
// skipped with a message without one):
// for a plan of each fusion level and stage form the tuner can pick at N = 3 and 5, fp64 and fp32 (fusion 0, 1 and 2, the
// tensor-core stage included), the right-hand side and 10 steps of the state and the layer's
// auxiliary fields match the ref backend's.
#include <gtest/gtest.h>

#include <cmath>
#include <set>
#include <tuple>

#include "config_problem.hpp"
#include "mixed_problem.hpp"
#include "solver/backends/cuda/cuda_backend.hpp"
#include "solver/backends/cuda/cuda_driver.hpp"
#include "solver/backends/cuda/cuda_tuner.hpp"
#include "solver/backends/ref/ref_backend.hpp"
#include "solver/physics/pml.hpp"
#include "solver/physics/tfsf.hpp"
#include "solver/time/timestep.hpp"
#include "max_rel.hpp"

using namespace dgmax;
using namespace dgmax::test;

namespace {

class GpuPml : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string why;
    if (!cuda::driver_available(&why)) GTEST_SKIP() << "no GPU: " << why;
  }
};

std::string pml_config(int N) {
  return R"y(
mesh:
  box: {lower: [-0.5, -0.5, -0.5], upper: [0.5, 0.5, 0.5], cells: [3, 3, 3], pml: 0.333333333333333333}
discretization: {order: )y" +
         std::to_string(N) + R"y(, flux: upwind}
materials: {default: {eps: 1, mu: 1}, pml: {eps: 2, mu: 1.5}}
sources:
  J: ["0", "0", "exp(-(x^2 + y^2 + z^2)/0.1)*sin(5*t)"]
pml: {order: 2, reflection: 1e-4, kappa: 2.5, alpha: 0.3}
incident:
  E: ["0", "sin(4*(x - t))*exp(-(x - t)^2)", "0.5*cos(3*(x - t))"]
  H: ["0", "-0.5*cos(3*(x - t))", "sin(4*(x - t))*exp(-(x - t)^2)"]
tfsf: {box: {lower: [-0.16666666666666666, -0.16666666666666666, -0.16666666666666666], upper: [0.16666666666666666, 0.16666666666666666, 0.16666666666666666]}}
)y";
}


}  // namespace

TEST_F(GpuPml, EveryAcceptedPlanMatchesRef) {
  for (int N : {3, 5}) {
    const auto c = config_problem(pml_config(N));
    const Problem& p = c->p;
    ASSERT_TRUE(p.pml);
    ASSERT_TRUE(p.tfsf);
    const Fields q0 = random_state(p, N);
    const double dt = stable_dt(p, 0.5);
    RefBackend ref(p);
    Fields r_ref, q_ref;
    ref.rhs(q0, 0.37, r_ref);
    ref.set_state(q0);
    for (int s = 0; s < 10; ++s) ref.step(s * dt, dt);
    ref.get_state(q_ref);
    std::vector<double> aux_ref;
    ref.get_aux(aux_ref);
    for (const bool single : {false, true}) {
      const double tol = single ? 2e-5 : 1e-12;
      std::set<std::tuple<int, bool, bool, bool>> seen;  // one plan per fusion level and stage form
      for (const codegen::PlanCandidate& cand : codegen::enumerate_cuda_plans(N, single, cuda_block_limits())) {
        const codegen::CudaPlan& pl = cand.plan;
        if (!cand.rejected.empty() || !seen.insert({pl.fusion, pl.mma, pl.mma_chunked, pl.transposed}).second) continue;
        auto be = make_cuda_plan_backend(p, single, cand.plan);
        Fields r, q;
        be->rhs(q0, 0.37, r);
        EXPECT_LE(relative_difference(r, r_ref), tol) << "rhs, N " << N << " plan " << cand.plan.name() << (single ? " fp32" : " fp64");
        be->set_state(q0);
        for (int s = 0; s < 10; ++s) be->step(s * dt, dt);
        be->get_state(q);
        std::vector<double> aux;
        be->get_aux(aux);
        EXPECT_LE(relative_difference(q, q_ref), 10 * tol) << "steps, N " << N << " plan " << cand.plan.name();
        ASSERT_EQ(aux.size(), aux_ref.size());
        EXPECT_LE(max_rel(aux, aux_ref), 10 * tol) << "aux, N " << N << " plan " << cand.plan.name();
      }
    }
  }
}
