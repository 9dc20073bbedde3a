// The mesh layer together with the reference element: face node maps, the divergence theorem
// with the discrete operators, and exact physical derivatives of polynomials, on random affine meshes.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "random_mesh.hpp"
#include "solver/element/reference_element.hpp"
#include "solver/mesh/face_maps.hpp"

using namespace dgmax;

namespace {

// A random polynomial of total degree <= N in (x, y, z).
struct Poly {
  std::vector<std::array<int, 3>> powers;
  std::vector<double> coef;
  Poly(int N, std::mt19937& rng) {
    std::uniform_real_distribution<double> u(-1, 1);
    for (int a = 0; a <= N; ++a)
      for (int b = 0; a + b <= N; ++b)
        for (int c = 0; a + b + c <= N; ++c) {
          powers.push_back({a, b, c});
          coef.push_back(u(rng));
        }
  }
  double operator()(double x, double y, double z) const {
    double v = 0;
    for (size_t i = 0; i < coef.size(); ++i)
      v += coef[i] * std::pow(x, powers[i][0]) * std::pow(y, powers[i][1]) * std::pow(z, powers[i][2]);
    return v;
  }
  // derivative along axis d
  double d(int axis, double x, double y, double z) const {
    double v = 0;
    for (size_t i = 0; i < coef.size(); ++i) {
      auto p = powers[i];
      if (p[axis] == 0) continue;
      const double f = p[axis];
      --p[axis];
      v += coef[i] * f * std::pow(x, p[0]) * std::pow(y, p[1]) * std::pow(z, p[2]);
    }
    return v;
  }
};

}  // namespace

TEST(FaceMaps, MatchedFaceNodesCoincide) {
  BoxSpec spec;
  spec.cells = {2, 2, 3};
  spec.periodic = {false, true, true};
  for (const Mesh& mesh : {test::random_affine_mesh(2, 5).mesh, make_box_mesh(spec)}) {
    const MeshData md = setup_mesh(mesh);
    for (int N : {1, 3, 6}) {
      const RefElement& ref = ref_element(N);
      const NodeCoords xyz = node_coordinates(md.mesh, ref);
      const FaceMaps fm = build_face_maps(md, ref, xyz);
      int matched = 0;
      for (int k = 0; k < md.mesh.num_elements(); ++k)
        for (int f = 0; f < 4; ++f)
          for (int j = 0; j < ref.Nfp; ++j) {
            const size_t slot = (static_cast<size_t>(k) * 4 + f) * ref.Nfp + j;
            const int m = fm.vmapM[slot], p = fm.vmapP[slot];
            EXPECT_EQ(m / ref.Np, k);
            if (md.conn.is_boundary(k, f)) {
              EXPECT_EQ(p, m);
              continue;
            }
            EXPECT_EQ(p / ref.Np, md.conn.EToE[k][f]);
            double shift[3] = {0, 0, 0};
            if (md.conn.face_periodic[k][f] >= 0) {
              const auto& pair = md.mesh.periodic[md.conn.face_periodic[k][f]];
              const double sign = md.conn.face_tag[k][f] == pair.tag_a ? 1 : -1;
              for (int d = 0; d < 3; ++d) shift[d] = sign * pair.shift[d];
            }
            EXPECT_NEAR(xyz.x[m] + shift[0], xyz.x[p], 1e-12);
            EXPECT_NEAR(xyz.y[m] + shift[1], xyz.y[p], 1e-12);
            EXPECT_NEAR(xyz.z[m] + shift[2], xyz.z[p], 1e-12);
            ++matched;
          }
      EXPECT_EQ(matched, 2 * (md.conn.interior_faces + md.conn.periodic_faces) * ref.Nfp);
    }
  }
}

TEST(DiscreteOperators, DivergenceTheoremAndExactGradientsOnRandomAffineMeshes) {
  std::mt19937 rng(42);
  const MeshData md = setup_mesh(test::random_affine_mesh(2, 3).mesh);
  for (int N = 1; N <= 6; ++N) {
    const RefElement& ref = ref_element(N);
    const NodeCoords xyz = node_coordinates(md.mesh, ref);
    const Poly ux(N, rng), uy(N, rng), uz(N, rng);
    double worst_div = 0, worst_grad = 0;
    for (int k = 0; k < md.mesh.num_elements(); ++k) {
      Eigen::VectorXd u[3];
      for (auto& c : u) c.resize(ref.Np);
      for (int i = 0; i < ref.Np; ++i) {
        const size_t n = static_cast<size_t>(k) * ref.Np + i;
        u[0][i] = ux(xyz.x[n], xyz.y[n], xyz.z[n]);
        u[1][i] = uy(xyz.x[n], xyz.y[n], xyz.z[n]);
        u[2][i] = uz(xyz.x[n], xyz.y[n], xyz.z[n]);
      }
      const auto& g = md.geom.drdx[k];  // rx ry rz sx sy sz tx ty tz
      // physical derivative d/dx_d = r_d Dr + s_d Ds + t_d Dt
      auto deriv = [&](const Eigen::VectorXd& v, int d) -> Eigen::VectorXd {
        return g[d] * (ref.Dr * v) + g[3 + d] * (ref.Ds * v) + g[6 + d] * (ref.Dt * v);
      };
      const Eigen::VectorXd div = deriv(u[0], 0) + deriv(u[1], 1) + deriv(u[2], 2);
      // gradients of degree-N polynomials are exact at the nodes
      const Poly* polys[3] = {&ux, &uy, &uz};
      for (int c = 0; c < 3; ++c)
        for (int d = 0; d < 3; ++d) {
          const Eigen::VectorXd du = deriv(u[c], d);
          for (int i = 0; i < ref.Np; ++i) {
            const size_t n = static_cast<size_t>(k) * ref.Np + i;
            worst_grad = std::max(worst_grad, std::abs(du[i] - polys[c]->d(d, xyz.x[n], xyz.y[n], xyz.z[n])));
          }
        }
      // ∫_K div u dV  vs  Σ_f ∫_f u·n dS, both with the element's own quadrature (mass matrices)
      const double volume_integral = md.geom.J[k] * Eigen::VectorXd::Ones(ref.Np).dot(ref.M * div);
      double surface_integral = 0;
      for (int f = 0; f < 4; ++f) {
        Eigen::VectorXd un(ref.Nfp);
        for (int j = 0; j < ref.Nfp; ++j) {
          const int i = ref.Fmask(j, f);
          un[j] = md.geom.normal[k][f][0] * u[0][i] + md.geom.normal[k][f][1] * u[1][i] +
                  md.geom.normal[k][f][2] * u[2][i];
        }
        surface_integral += md.geom.sJ[k][f] * Eigen::VectorXd::Ones(ref.Nfp).dot(ref.face_mass[f] * un);
      }
      const double scale = std::abs(volume_integral) + std::abs(surface_integral) + 1e-3;
      worst_div = std::max(worst_div, std::abs(volume_integral - surface_integral) / scale);
    }
    EXPECT_LT(worst_div, 1e-11) << "N = " << N;
    EXPECT_LT(worst_grad, 1e-8) << "N = " << N;
  }
}
