// Regression: configs/cylinder_cavity.yaml (TM010 mode of a PEC cylinder on curved elements of
// Gmsh's meshes/cylinder.geo, ref backend), shortened to t = 0.25. Expected numbers measured
// 2026-12-06 on this project's 2-core machine (Gmsh 4.8's setOrder, the nodes off the wall blended
// from it, bench/NOTES.md "2026-12-06 — The cylinder cavity with blended boundary elements"; the
// volume rule of the skew identity's degree, "2026-12-06 — The curved volume rule of the skew
// identity's degree").
#include <gtest/gtest.h>

#include "regression_run.hpp"

using dgmax::test::run_config;

TEST(RegressionCylinderCavity, CurvedElementsBeatTheFacetedWall) {
  const auto curved = run_config("cylinder_cavity", {"time.final=0.25"});
  ASSERT_EQ(curved.code, 0);
  EXPECT_EQ(curved.summary["K"], 229);
  EXPECT_EQ(curved.summary["steps"], 42);
  EXPECT_REL_NEAR(curved.err_L2("E"), 5.0978264621330863e-04);
  EXPECT_REL_NEAR(curved.err_L2("H"), 4.1681313331847056e-04);
  EXPECT_REL_NEAR(curved.energy_initial(), 0.42344864753934924);
  EXPECT_REL_NEAR(curved.energy_final(), 0.42344849539158169);
  // physics: the exact energy is pi/2 J1(j01)^2 = 0.4233518; the upwind flux only dissipates
  EXPECT_NEAR(curved.energy_initial(), 0.4233518, 1e-4);
  EXPECT_LE(curved.energy_final(), curved.energy_initial());

  // the same mesh straight-sided: its faceted wall costs 50x in the error
  const auto straight = run_config("cylinder_cavity", {"time.final=0.25", "mesh.geometry_order=1"});
  ASSERT_EQ(straight.code, 0);
  EXPECT_EQ(straight.summary["K"], 229);
  EXPECT_REL_NEAR(straight.err_L2("E"), 2.229974514261395e-02);
  EXPECT_GT(straight.err_L2("E"), 40 * curved.err_L2("E"));
  EXPECT_GT(straight.err_L2("H"), 30 * curved.err_L2("H"));
}
