// The perfectly matched layer on the generated cpu backend against the ref backend (which
// computes the layer's terms with the host twin of the generated code, pml_profile.hpp): the
// right-hand side, then whole steps of the state and of the auxiliary fields, with graded
// sigma, kappa != 1 and alpha > 0, in the faces, edges and corners of the layer.
#include <gtest/gtest.h>

#include <cmath>

#include "config_problem.hpp"
#include "mixed_problem.hpp"
#include "solver/backends/cpu/cpu_backend.hpp"
#include "solver/backends/ref/ref_backend.hpp"
#include "solver/physics/pml.hpp"
#include "solver/time/timestep.hpp"

namespace dgmax {
namespace {

std::string pml_config(const std::string& precision, double kappa) {
  return R"y(
mesh:
  box: {lower: [-0.5, -0.5, -0.5], upper: [0.5, 0.5, 0.5], cells: [2, 2, 2], pml: 0.5}
discretization: {order: 3, precision: )y" +
         precision + R"y(, flux: upwind}
materials: {default: {eps: 1, mu: 1}, pml: {eps: 2, mu: 1.5}}
sources:
  J: ["0", "0", "exp(-(x^2 + y^2 + z^2)/0.1)*sin(5*t)"]
pml: {order: 2, reflection: 1e-4, kappa: )y" +
         std::to_string(kappa) + R"y(, alpha: 0.3}
)y";
}

double max_abs_diff(const std::vector<double>& a, const std::vector<double>& b) {
  double d = 0, m = 0;
  for (size_t i = 0; i < a.size(); ++i) d = std::max(d, std::abs(a[i] - b[i])), m = std::max(m, std::abs(b[i]));
  return m > 0 ? d / m : d;
}

TEST(PmlBackends, LayerIsTheBoxShell) {
  const auto c = test::config_problem(pml_config("double", 1));
  ASSERT_TRUE(c->p.pml);
  // 2^3 inner cells of 6 tets inside a 4^3-cell box: the layer is the rest
  EXPECT_EQ(c->p.K(), 6 * 64);
  EXPECT_EQ(c->p.pml->elements.size(), 6u * (64 - 8));
}

TEST(PmlBackends, CpuRhsMatchesRef) {
  for (double kappa : {1.0, 3.0}) {
    const auto c = test::config_problem(pml_config("double", kappa));
    auto cpu = make_cpu_backend(c->p, false);
    const double d = test::rhs_difference_to_ref(c->p, *cpu, 7);
    EXPECT_LE(d, 1e-12) << "kappa " << kappa;
  }
}

// 20 steps from a random state: the state and the auxiliary fields (which the right-hand side
// feeds back into the state) agree with ref to rounding; single precision to its own.
TEST(PmlBackends, CpuStepsMatchRefWithAuxiliaryFields) {
  for (const std::string precision : {"double", "single"}) {
    const auto c = test::config_problem(pml_config(precision, 2.5));
    const Problem& p = c->p;
    RefBackend ref(p);
    auto cpu = make_cpu_backend(p, precision == "single");
    const Fields q0 = test::random_state(p, 11);
    ref.set_state(q0);
    cpu->set_state(q0);
    const double dt = stable_dt(p, 0.5);
    for (int s = 0; s < 20; ++s) {
      ref.step(s * dt, dt);
      cpu->step(s * dt, dt);
    }
    Fields qr, qc;
    ref.get_state(qr);
    cpu->get_state(qc);
    std::vector<double> ar, ac;
    ref.get_aux(ar);
    cpu->get_aux(ac);
    ASSERT_EQ(ar.size(), 2 * p.pml->elements.size() * codegen::kPmlAux * p.Np());
    ASSERT_EQ(ac.size(), ar.size());
    double psi_max = 0;
    for (size_t i = 0; i < ar.size() / 2; ++i) psi_max = std::max(psi_max, std::abs(ar[i]));
    EXPECT_GT(psi_max, 1e-3) << "the auxiliary fields must be exercised";
    const double tol = precision == "single" ? 2e-5 : 1e-12;
    EXPECT_LE(test::relative_difference(qc, qr), tol) << precision;
    EXPECT_LE(max_abs_diff(ac, ar), tol * 10) << precision;
  }
}

// set_aux after set_state continues a run exactly (what a restart does).
TEST(PmlBackends, AuxiliaryStateRoundTrips) {
  const auto c = test::config_problem(pml_config("double", 2));
  const Problem& p = c->p;
  auto a = make_cpu_backend(p, false), b = make_cpu_backend(p, false);
  a->set_state(test::random_state(p, 3));
  const double dt = stable_dt(p, 0.5);
  for (int s = 0; s < 5; ++s) a->step(s * dt, dt);
  Fields q, res;
  std::vector<double> aux;
  a->get_state(q);
  a->get_residual(res);
  a->get_aux(aux);
  b->set_state(q);
  b->set_residual(res);
  b->set_aux(aux);
  for (int s = 5; s < 10; ++s) a->step(s * dt, dt), b->step(s * dt, dt);
  Fields qa, qb;
  a->get_state(qa);
  b->get_state(qb);
  EXPECT_EQ(qa.q, qb.q);
}

}  // namespace
}  // namespace dgmax
