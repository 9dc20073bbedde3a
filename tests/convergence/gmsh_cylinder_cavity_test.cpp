// The TM010 mode of a PEC circular cylinder (radius 1, length 1) on Gmsh meshes of
// meshes/cylinder.geo: with curved elements of geometry order q = N the L2 error falls at order
// N + 1 in h; with straight-sided elements the faceted wall caps it (printed for the record).
// The table is printed for docs/verification.md (ctest -R CylinderCavity -V).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

#include "simulate.hpp"
#include "solver/mesh/mesh_file.hpp"

using namespace dgmax;
using namespace dgmax::test;

namespace {
constexpr double kJ01 = 2.404825557695773;  // first zero of J0: k = omega = j01 / R, R = 1

// E = (0, 0, J0(k rho) cos(k t)), H = J1(k rho) sin(k t) (y, -x, 0) / rho
FieldFn tm010() {
  return [](size_t n, const double* x, const double* y, const double*, double t, double* const* out) {
    for (size_t i = 0; i < n; ++i) {
      const double rho = std::hypot(x[i], y[i]), kr = kJ01 * rho;
      const double j1_over_rho = rho > 1e-12 ? std::cyl_bessel_j(1.0, kr) / rho : kJ01 / 2;
      out[0][i] = 0;
      out[1][i] = 0;
      out[2][i] = std::cyl_bessel_j(0.0, kr) * std::cos(kJ01 * t);
      out[3][i] = j1_over_rho * y[i] * std::sin(kJ01 * t);
      out[4][i] = -j1_over_rho * x[i] * std::sin(kJ01 * t);
      out[5][i] = 0;
    }
  };
}

struct Result {
  double error;  // L2 of (E, H) at t = T
  double h;      // (volume / K)^(1/3)
  int K, curved;
};

Result cylinder_error(int N, int q, double size, double T) {
  auto md = std::make_shared<const MeshData>(
      setup_mesh(load_mesh_file(std::string(DGMAX_SOURCE_DIR) + "/meshes/cylinder.geo", size, q)));
  Problem p = make_problem(md, N);  // PEC walls, upwind flux
  const auto r = simulate(p, tm010(), T, 0.5);
  const ErrorNorms e = error_norms(p, r.q, tm010(), T);
  return {std::hypot(e.L2_E, e.L2_H), std::cbrt(M_PI / p.K()), p.K(), md->mesh.num_curved()};
}
}  // namespace

TEST(CylinderCavity, CurvedElementsConvergeAtOrderNPlusOne) {
  constexpr double T = 0.3;
  std::printf("\n  N  q   size  K      curved  L2 error    | size  K      curved  L2 error    order\n");
  for (int N = 2; N <= 3; ++N)
    for (int q : {1, N}) {
      const Result a = cylinder_error(N, q, 0.5, T), b = cylinder_error(N, q, 0.25, T);
      const double order = std::log(a.error / b.error) / std::log(a.h / b.h);
      std::printf("  %d  %d   0.5   %-6d %-7d %.4e  | 0.25  %-6d %-7d %.4e  %.2f\n", N, q, a.K, a.curved, a.error,
                  b.K, b.curved, b.error, order);
      if (q == N) {
        EXPECT_GE(order, N + 0.5) << "N = " << N;
      }
    }
}
