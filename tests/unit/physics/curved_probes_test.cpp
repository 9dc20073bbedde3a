// Probes in curved elements: a point is located by Newton's method on the element's map, so its
// reference coordinates map back onto it and a field the elements represent exactly is sampled
// exactly there.
#include <gtest/gtest.h>

#include <cmath>

#include "curved_box.hpp"
#include "solver/mesh/curved_mesh.hpp"
#include "solver/physics/probes.hpp"

using namespace dgmax;
using namespace dgmax::test;

TEST(CurvedProbes, PointsAreLocatedOnTheCurvedMapAndSampledExactly) {
  BoxSpec spec;
  spec.cells = {2, 2, 2};
  const int N = 3, q = 2;
  const Problem p = warped_box_problem(spec, N, q, 0.12, 1.0);
  const Vec3 points[] = {{0.31, 0.42, 0.57}, {0.5, 0.5, 0.5}, {0.77, 0.13, 0.25}, {0.05, 0.93, 0.61}};
  // a linear field in x: of degree q <= N in r on every element, so represented exactly
  auto f = [](double x, double y, double z) { return 1 + 2 * x - y + 3 * z; };
  for (const Vec3& x : points) {
    const std::vector<PointLocation> at = holding_elements(*p.md, x);
    ASSERT_FALSE(at.empty()) << x[0] << " " << x[1] << " " << x[2];
    for (const PointLocation& loc : at) {
      const Vec3 back = map_element(p.md->mesh, loc.element, loc.r, loc.s, loc.t);
      for (int d = 0; d < 3; ++d) EXPECT_NEAR(back[d], x[d], 1e-12);
      const std::vector<double> w = interpolation_weights(*p.ref, loc.r, loc.s, loc.t);
      double sample = 0;
      for (int i = 0; i < p.Np(); ++i) {
        const size_t n = static_cast<size_t>(loc.element) * p.Np() + i;
        sample += w[i] * f(p.xyz.x[n], p.xyz.y[n], p.xyz.z[n]);
      }
      EXPECT_NEAR(sample, f(x[0], x[1], x[2]), 1e-12);
    }
  }
  // the straight-sided guess alone would miss: the warp moves points by up to 0.12 * 1.5
  const Vec3 x = points[1];
  const PointLocation loc = holding_elements(*p.md, x).front();
  const Vec3 straight = map_to_physical(p.md->mesh, loc.element, loc.r, loc.s, loc.t);
  double off = 0;
  for (int d = 0; d < 3; ++d) off = std::max(off, std::abs(straight[d] - x[d]));
  EXPECT_GT(off, 1e-3);
}
