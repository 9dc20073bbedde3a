// Regression: configs/cavity.yaml (PEC cavity TM110 mode, exact in time), shortened to the 2x2x2
// box so each run takes well under a second. Expected numbers were measured with backend auto
// (the generated cpu backend; the ref backend agrees to 1e-15), twice, with 1 and 2 OpenMP
// threads: equal to 1e-15.
#include <gtest/gtest.h>

#include "regression_run.hpp"

using dgmax::test::run_config;

namespace {

// one period (time.final = sqrt(2)), N = 4, 48 tets, 97 steps
const std::vector<std::string> kCoarse = {"mesh.box.cells=[2,2,2]", "discretization.order=4"};

}  // namespace

TEST(RegressionCavity, OnePeriodMatchesTheExactMode) {
  const auto r = run_config("cavity", kCoarse);
  ASSERT_EQ(r.code, 0);
  EXPECT_EQ(r.summary["K"], 48);
  EXPECT_EQ(r.summary["steps"], 97);
  EXPECT_DOUBLE_EQ(r.summary["final_time"].get<double>(), 1.4142135623730951);
  EXPECT_REL_NEAR(r.err_L2("E"), 8.13034364264156e-04);
  EXPECT_REL_NEAR(r.err_L2("H"), 3.1754096890708043e-04);
  EXPECT_REL_NEAR(r.err_Linf("E"), 2.3127690534987866e-02);
  EXPECT_REL_NEAR(r.err_Linf("H"), 5.363384932366048e-03);
  EXPECT_REL_NEAR(r.energy_initial(), 0.12510312904758927);
  EXPECT_REL_NEAR(r.energy_final(), 0.12509996831308143);
  // physics: the field norm is 1/2, the error a small fraction of it; the exact energy is 1/8
  // and the upwind flux only dissipates (a little, for a resolved mode)
  EXPECT_LT(r.err_L2("E"), 1e-3);
  EXPECT_LT(r.err_L2("H"), 1e-3);
  EXPECT_NEAR(r.energy_initial(), 0.125, 1e-3);
  EXPECT_LE(r.energy_final(), r.energy_initial());
  EXPECT_GT(r.energy_final(), r.energy_initial() * (1 - 1e-4));
}

TEST(RegressionCavity, LowerOrderIsLessAccurate) {
  const auto r = run_config("cavity", {"mesh.box.cells=[2,2,2]", "discretization.order=3"});
  ASSERT_EQ(r.code, 0);
  EXPECT_EQ(r.summary["steps"], 69);
  EXPECT_REL_NEAR(r.err_L2("E"), 5.345637060011002e-03);
  EXPECT_REL_NEAR(r.err_L2("H"), 1.7575354685170474e-03);
  EXPECT_REL_NEAR(r.energy_final(), 0.12550727480958204);
  EXPECT_GT(r.err_L2("E"), 5 * 8.13034364264156e-04);  // N = 3 vs the N = 4 error above
}

TEST(RegressionCavity, CentralFluxConservesEnergy) {
  auto sets = kCoarse;
  sets.push_back("discretization.flux=central");
  const auto r = run_config("cavity", sets);
  ASSERT_EQ(r.code, 0);
  EXPECT_EQ(r.summary["flux"], "central");
  EXPECT_REL_NEAR(r.err_L2("E"), 1.5543846471652424e-03);
  EXPECT_REL_NEAR(r.err_L2("H"), 1.3718784559988706e-03);
  EXPECT_REL_NEAR(r.energy_final(), 0.1251031183750207);
  // only the time integrator changes the discrete energy (measured: -8.5e-8 over the period)
  EXPECT_NEAR(r.energy_final() / r.energy_initial(), 1.0, 1e-6);
  for (const auto& s : r.energy) EXPECT_NEAR(s.energy / r.energy_initial(), 1.0, 1e-6) << "t = " << s.t;
}
