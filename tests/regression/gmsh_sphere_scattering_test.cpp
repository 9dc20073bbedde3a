// Regression: configs/sphere_scattering.yaml (plane pulse through an eps = 4 sphere, Gmsh mesh of
// meshes/sphere_in_box.geo), shortened to mesh size 0.5 (622 tets) and N = 2. No exact solution:
// the test pins the energy history and compares with the same run without the sphere.
// Compiled only in builds with Gmsh. Expected numbers measured with backend auto (the generated
// cpu backend; the ref backend agrees to 1e-15), with 1 and 2 OpenMP threads (equal to 1e-15;
// the Gmsh mesh is the same on every run).
#include <gtest/gtest.h>

#include "regression_run.hpp"

using dgmax::test::run_config;

namespace {

// energy sampled every 2 steps, the history these numbers were pinned with
const std::vector<std::string> kCoarse = {"mesh.size=0.5", "discretization.order=2", "output.energy_every=2"};
constexpr double kPulseEnergy = 0.18799712059;  // w·sqrt(pi/2) with w = 0.15: the whole pulse

}  // namespace

TEST(RegressionSphereScattering, SphereKeepsScatteredEnergy) {
  const auto r = run_config("sphere_scattering", kCoarse);
  ASSERT_EQ(r.code, 0);
  EXPECT_EQ(r.summary["K"], 622);
  EXPECT_EQ(r.summary["steps"], 493);
  EXPECT_DOUBLE_EQ(r.summary["final_time"].get<double>(), 2.5);
  EXPECT_REL_NEAR(r.energy_initial(), 6.390994435028284e-12);
  EXPECT_REL_NEAR(r.energy_final(), 7.133632622495244e-03);
  const auto peak = r.energy_peak();
  EXPECT_REL_NEAR(peak.energy, 0.18437273614005698);
  EXPECT_NEAR(peak.t, 0.74115323194798222, 1e-12);
  // physics: the pulse (s0 = -0.5) starts outside the box; all of it enters (within the coarse
  // mesh's dissipation) and a few percent stay scattered by the sphere at t = 2.5
  EXPECT_LT(r.energy_initial(), 1e-10);
  EXPECT_NEAR(peak.energy, kPulseEnergy, 0.05 * kPulseEnergy);
  EXPECT_GT(r.energy_final(), 0.01 * kPulseEnergy);
  EXPECT_LT(r.energy_final(), 0.1 * kPulseEnergy);
}

TEST(RegressionSphereScattering, WithoutSphereThePulsePassesThrough) {
  auto sets = kCoarse;
  sets.push_back("materials.sphere.eps=1");
  const auto r = run_config("sphere_scattering", sets);
  ASSERT_EQ(r.code, 0);
  EXPECT_EQ(r.summary["steps"], 628);  // the smallest tets are at the sphere, now at speed 1
  EXPECT_REL_NEAR(r.energy_final(), 5.1940028250098476e-05);
  EXPECT_REL_NEAR(r.energy_peak().energy, 0.1843915450314848);
  // the incident boundary lets the plane pulse in and out: almost nothing stays, 100 times less
  // than with the sphere
  EXPECT_NEAR(r.energy_peak().energy, kPulseEnergy, 0.05 * kPulseEnergy);
  EXPECT_LT(r.energy_final(), 7.133632622495244e-03 / 100);
}
