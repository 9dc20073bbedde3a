// The h-orders of configs/cylinder_cavity.yaml (TM010 mode of a PEC cylinder, geometry order = N) at
// N = 4 and 5 on the cpu backend, meshes/cylinder.geo at sizes 0.375 and 0.25 (387 and 1,192 tets),
// t = 0.3: at least N + 0.5. These orders need the boundary elements' nodes placed from the wall
// alone (blend_curved_nodes.hpp); with Gmsh's own placement they were about 4 (bench/NOTES.md,
// "2026-12-06 — The cylinder cavity with blended boundary elements").
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <string>

#include "regression_run.hpp"

using dgmax::test::run_config;

namespace {
struct Point {
  int K;
  double error;  // sqrt(L2_E² + L2_H²)
};

Point run(int N, double size) {
  const auto r = run_config("cylinder_cavity", {"backend=cpu", "discretization.order=" + std::to_string(N),
                                                "mesh.size=" + std::to_string(size), "time.final=0.3"});
  EXPECT_EQ(r.code, 0) << r.err;
  if (r.code != 0) return {1, 1};
  return {r.summary["K"].get<int>(), std::hypot(r.err_L2("E"), r.err_L2("H"))};
}
}  // namespace

TEST(RegressionCylinderOrders, AtLeastNPlusOneHalfAtOrdersFourAndFive) {
  std::printf("\n  N  K      error       K      error       order\n");
  for (int N = 4; N <= 5; ++N) {
    const Point a = run(N, 0.375), b = run(N, 0.25);
    // h = (π / K)^(1/3): the cylinder's volume per element
    const double order = std::log(a.error / b.error) / std::log(std::cbrt(double(b.K) / a.K));
    std::printf("  %d  %-6d %.4e  %-6d %.4e  %.2f\n", N, a.K, a.error, b.K, b.error, order);
    EXPECT_EQ(a.K, 387);
    EXPECT_EQ(b.K, 1192);
    EXPECT_GE(order, N + 0.5) << "N = " << N;
  }
}
