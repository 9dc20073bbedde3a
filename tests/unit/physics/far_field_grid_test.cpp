// The far-field directions of a monitor (solver/physics/far_field_grid.hpp): the default is the two
// principal cuts, a grid runs phi-major and carries the degrees the user wrote (for the CSV).
#include "solver/physics/far_field_grid.hpp"

#include <gtest/gtest.h>

#include <cmath>

using dgmax::FarFieldDirection;
using dgmax::FarFieldGrid;

namespace {
constexpr double kPiGrid = 3.14159265358979323846;
}

TEST(FarFieldGrid, DefaultIsThePrincipalCutsEveryFiveDegrees) {
  const std::vector<FarFieldDirection> d = dgmax::far_field_directions(FarFieldGrid{});
  const std::vector<FarFieldDirection> cuts = dgmax::principal_cuts(5);
  ASSERT_EQ(d.size(), 74u);
  for (size_t i = 0; i < d.size(); ++i) {
    EXPECT_EQ(d[i].theta, cuts[i].theta);
    EXPECT_EQ(d[i].phi, cuts[i].phi);
  }
}

TEST(FarFieldGrid, PhiMajorWithTheConfiguredDegrees) {
  FarFieldGrid g;
  g.theta_deg = {0, 45, 90, 135.5};
  g.phi_deg = {-90, 0, 33.3};
  const std::vector<FarFieldDirection> d = dgmax::far_field_directions(g);
  ASSERT_EQ(d.size(), 12u);
  for (size_t p = 0; p < 3; ++p)
    for (size_t t = 0; t < 4; ++t) {
      const FarFieldDirection& x = d[p * 4 + t];
      EXPECT_EQ(x.theta_deg, g.theta_deg[t]);
      EXPECT_EQ(x.phi_deg, g.phi_deg[p]);
      EXPECT_NEAR(x.theta, g.theta_deg[t] * kPiGrid / 180, 1e-15);
      EXPECT_NEAR(x.phi, g.phi_deg[p] * kPiGrid / 180, 1e-15);
    }
  // the default cuts carry no degrees: the CSV converts their radians as it always did
  EXPECT_TRUE(std::isnan(dgmax::far_field_directions(FarFieldGrid{})[1].theta_deg));
  // the sphere: theta 0..180, phi 0..360 - step, each exactly the decimal step multiple
  const FarFieldGrid s = dgmax::sphere_grid(0.1);
  ASSERT_EQ(s.theta_deg.size(), 1801u);
  ASSERT_EQ(s.phi_deg.size(), 3600u);
  EXPECT_EQ(s.theta_deg[1234], 123.4);
  EXPECT_EQ(s.theta_deg.back(), 180);
  EXPECT_EQ(s.phi_deg[2554], 255.4);
  EXPECT_EQ(s.phi_deg.back(), 359.9);
}
