// Regression: configs/dielectric_interface.yaml (plane Gaussian pulse at normal incidence on an
// eps = 4 half-space, exact Fresnel solution in `exact:`), shortened to 20 cells (h = 0.1, y/z
// thickness 0.1 to keep the tets regular). It checks the interface flux against Fresnel three ways:
// the error is small, it falls with N, and an `exact:` with a wrong coefficient is far off.
// Expected numbers measured with backend auto (the generated cpu backend; the ref backend agrees
// to 1e-15), with 1 and 2 OpenMP threads (equal to 1e-15).
#include <gtest/gtest.h>

#include "regression_run.hpp"

using dgmax::test::ConfigRun;
using dgmax::test::run_config;

namespace {

ConfigRun run_coarse(int order, std::vector<std::string> extra = {}) {
  std::vector<std::string> sets = {"mesh.box.cells=[20,1,1]", "mesh.box.upper=[2,0.1,0.1]",
                                   "discretization.order=" + std::to_string(order)};
  sets.insert(sets.end(), extra.begin(), extra.end());
  return run_config("dielectric_interface", sets);
}

// N = 3 on 20 cells with the Fresnel coefficients (r = -1/3, t = 2/3), t_final = 1.2
constexpr double kErrE3 = 2.599223607781605e-04, kErrH3 = 5.195864298751822e-04;
constexpr double kEnergy0 = 1.8802599765297566e-03;  // w·sqrt(pi/2)·0.1² = 1.87997e-3 exactly

}  // namespace

TEST(RegressionDielectricInterface, MatchesFresnelSolution) {
  const auto r = run_coarse(3);
  ASSERT_EQ(r.code, 0);
  EXPECT_EQ(r.summary["K"], 120);
  EXPECT_EQ(r.summary["steps"], 293);
  EXPECT_DOUBLE_EQ(r.summary["final_time"].get<double>(), 1.2);
  EXPECT_REL_NEAR(r.err_L2("E"), kErrE3);
  EXPECT_REL_NEAR(r.err_L2("H"), kErrH3);
  EXPECT_REL_NEAR(r.err_Linf("E"), 6.786996522328126e-02);
  EXPECT_REL_NEAR(r.err_Linf("H"), 1.357398005980357e-01);
  EXPECT_REL_NEAR(r.energy_initial(), kEnergy0);
  EXPECT_REL_NEAR(r.energy_final(), 1.8788130072314574e-03);
  // physics: the field norm is sqrt(energy) ≈ 0.043, the error about 1% of it; reflection and
  // transmission conserve energy (1/9 + 8/9), only upwind dissipation takes a little
  EXPECT_LT(r.err_L2("E"), 5e-4);
  EXPECT_LT(r.err_L2("H"), 1e-3);
  EXPECT_NEAR(r.energy_initial(), 1.87997e-3, 1e-3 * 1.87997e-3);
  EXPECT_LE(r.energy_final(), r.energy_initial());
  EXPECT_GT(r.energy_final(), 0.998 * r.energy_initial());
}

TEST(RegressionDielectricInterface, ErrorFallsWithOrder) {
  const auto r = run_coarse(4);
  ASSERT_EQ(r.code, 0);
  EXPECT_EQ(r.summary["steps"], 409);
  EXPECT_REL_NEAR(r.err_L2("E"), 3.219153884433656e-05);
  EXPECT_REL_NEAR(r.err_L2("H"), 6.435653776314332e-05);
  EXPECT_REL_NEAR(r.energy_final(), 1.8799065568144739e-03);
  // N = 4 vs N = 3 (measured factor 8): the solver converges to the Fresnel solution
  EXPECT_LT(r.err_L2("E"), kErrE3 / 5);
  EXPECT_LT(r.err_L2("H"), kErrH3 / 5);
}

TEST(RegressionDielectricInterface, WrongReflectionCoefficientIsFarOff) {
  // the classic sign error r = (Z1 − Z2)/(Z1 + Z2) = +1/3 in `exact:` only. The computed field
  // is unchanged (r enters the incident field only through outgoing characteristics), so the
  // error measures the distance between the solver's reflection and the wrong one.
  const auto r = run_coarse(3, {"constants.r=0.3333333333333333"});
  ASSERT_EQ(r.code, 0);
  EXPECT_REL_NEAR(r.energy_final(), 1.8788130072136511e-03);
  EXPECT_REL_NEAR(r.err_L2("E"), 2.8908564217486197e-02);
  EXPECT_GT(r.err_L2("E"), 50 * kErrE3);  // measured: 111 times the Fresnel error
  EXPECT_GT(r.err_L2("H"), 50 * kErrH3 / 2);
}

TEST(RegressionDielectricInterface, WrongTransmissionCoefficientIsFarOff) {
  // t = 1 (no impedance step) in `exact:` only
  const auto r = run_coarse(3, {"constants.tc=1"});
  ASSERT_EQ(r.code, 0);
  EXPECT_REL_NEAR(r.err_L2("E"), 1.0292231971698913e-02);
  EXPECT_GT(r.err_L2("E"), 20 * kErrE3);  // measured: 40 times
  EXPECT_GT(r.err_L2("H"), 20 * kErrH3);
}
