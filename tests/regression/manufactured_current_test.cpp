// Regression: configs/manufactured_current.yaml (a PEC cavity with eps = 2, mu = 1.5 driven by a
// manufactured current J = (0, 0, (eps − 2π²/mu) f sin t), exact field known), shortened to the
// 2x2x2 box. Expected numbers measured with backend auto (the generated cpu backend; the ref
// backend agrees to 2e-14, the summation order of the norms), with 1 and 2 OpenMP threads.
// The convergence orders are checked by tests/convergence/manufactured_current_test.cpp.
#include <gtest/gtest.h>

#include <cmath>

#include "regression_run.hpp"

using dgmax::test::run_config;

namespace {

// t = 1, N = 4, 48 tets, 40 steps
const std::vector<std::string> kCoarse = {"mesh.box.cells=[2,2,2]", "discretization.order=4"};
constexpr double kErrE4 = 7.131528070550955e-04, kErrH4 = 1.7567839567431706e-03;

// W(t) = 1/2 ∫ (eps |E|² + mu |H|²) = eps cos²t / 8 + π² sin²t / (4 mu) for the exact field
double exact_energy(double t) {
  const double eps = 2, mu = 1.5;
  return eps * std::cos(t) * std::cos(t) / 8 + M_PI * M_PI * std::sin(t) * std::sin(t) / (4 * mu);
}

}  // namespace

TEST(RegressionManufacturedCurrent, DrivenCavityMatchesTheManufacturedField) {
  const auto r = run_config("manufactured_current", kCoarse);
  ASSERT_EQ(r.code, 0);
  EXPECT_EQ(r.summary["K"], 48);
  EXPECT_EQ(r.summary["steps"], 40);
  EXPECT_DOUBLE_EQ(r.summary["final_time"].get<double>(), 1.0);
  EXPECT_REL_NEAR(r.err_L2("E"), kErrE4);
  EXPECT_REL_NEAR(r.err_L2("H"), kErrH4);
  EXPECT_REL_NEAR(r.err_Linf("E"), 1.3032049557789744e-02);
  EXPECT_REL_NEAR(r.err_Linf("H"), 2.690257092032553e-02);
  EXPECT_REL_NEAR(r.energy_initial(), 0.2502062580951785);
  EXPECT_REL_NEAR(r.energy_final(), 1.2387283646235512);
  // physics: |E(1)| = 0.27, |H(1)| = 1.25 (L2), the errors a small fraction; the source pumps the
  // energy from eps/8 = 0.25 to 1.2377 (exact), the discrete energy follows
  EXPECT_LT(r.err_L2("E"), 2e-3);
  EXPECT_LT(r.err_L2("H"), 4e-3);
  EXPECT_NEAR(r.energy_initial(), exact_energy(0), 1e-3);
  EXPECT_NEAR(r.energy_final(), exact_energy(1), 2e-3);
  for (const auto& s : r.energy) EXPECT_NEAR(s.energy, exact_energy(s.t), 5e-3) << "t = " << s.t;
}

TEST(RegressionManufacturedCurrent, LowerOrderIsLessAccurate) {
  const auto r = run_config("manufactured_current", {"mesh.box.cells=[2,2,2]", "discretization.order=3"});
  ASSERT_EQ(r.code, 0);
  EXPECT_EQ(r.summary["steps"], 29);
  EXPECT_REL_NEAR(r.err_L2("E"), 4.70476281453784e-03);
  EXPECT_REL_NEAR(r.err_L2("H"), 1.1035777548275434e-02);
  EXPECT_REL_NEAR(r.energy_final(), 1.2436941673905029);
  EXPECT_GT(r.err_L2("E"), 5 * kErrE4);  // N = 3 vs N = 4 (measured: 6.6x)
}

TEST(RegressionManufacturedCurrent, WithoutTheCurrentTheFieldIsWrong) {
  // J = 0: the initial E rings at the cavity's own frequency instead of following cos t, and no
  // energy comes in (only upwind dissipation changes it)
  auto sets = kCoarse;
  sets.push_back("sources.J=[\"0\",\"0\",\"0\"]");
  const auto r = run_config("manufactured_current", sets);
  ASSERT_EQ(r.code, 0);
  EXPECT_REL_NEAR(r.err_L2("E"), 0.6896227551579087);
  EXPECT_REL_NEAR(r.err_L2("H"), 0.9318662306391884);
  EXPECT_GT(r.err_L2("E"), 500 * kErrE4);
  EXPECT_NEAR(r.energy_final(), r.energy_initial(), 1e-5);
}
