#include "solver/mesh/curved_warp.hpp"

#include <cmath>
#include <numbers>

#include "solver/mesh/curved_lattice.hpp"
#include "solver/mesh/geometry.hpp"
#include "solver/util/error.hpp"

namespace dgmax {

void warp_mesh(Mesh& mesh, int q, const Warp& warp) {
  DGMAX_ASSERT(q >= 1 && q <= kMaxGeometryOrder, "warp_mesh: unsupported geometry order");
  const int K = mesh.num_elements(), nq = lattice_size(q);
  Eigen::VectorXd r, s, t;
  lattice_reference_points(q, r, s, t);
  mesh.geometry_order = q;
  mesh.curved_index.resize(K);
  mesh.curved_points.resize(static_cast<size_t>(K) * nq);
  // lattice points from the straight-sided elements first, then the vertices moved
  for (int k = 0; k < K; ++k) {
    mesh.curved_index[k] = k;
    for (int m = 0; m < nq; ++m)
      mesh.curved_points[static_cast<size_t>(k) * nq + m] = warp(map_to_physical(mesh, k, r(m), s(m), t(m)));
  }
  for (Vec3& v : mesh.vertices) v = warp(v);
  // the corner points are the vertices, bit for bit
  for (int k = 0; k < K; ++k)
    for (int v = 0; v < 4; ++v) {
      const int m = lattice_index(q, v == 1 ? q : 0, v == 2 ? q : 0, v == 3 ? q : 0);
      mesh.curved_points[static_cast<size_t>(k) * nq + m] = mesh.vertices[mesh.elements[k][v]];
    }
}

Warp box_warp(const Vec3& lo, const Vec3& hi, double amplitude) {
  return [=](const Vec3& x) {
    constexpr double pi = std::numbers::pi;
    double xi[3];
    for (int d = 0; d < 3; ++d) xi[d] = (x[d] - lo[d]) / (hi[d] - lo[d]);
    const double S = std::sin(pi * xi[0]) * std::sin(pi * xi[1]) * std::sin(pi * xi[2]);
    // a different shape per direction: S times a factor in [1/2, 3/2] that differs by axis
    Vec3 y = x;
    for (int d = 0; d < 3; ++d)
      y[d] += amplitude * (hi[d] - lo[d]) * S * (1.0 + 0.5 * std::cos(pi * xi[(d + 1) % 3]));
    return y;
  };
}

Warp ball_warp(const Vec3& center, double radius, double amplitude) {
  return [=](const Vec3& x) {
    constexpr double pi = std::numbers::pi;
    double xi[3], rho2 = 0;
    for (int d = 0; d < 3; ++d) {
      xi[d] = (x[d] - center[d]) / radius;
      rho2 += xi[d] * xi[d];
    }
    if (rho2 >= 1) return x;
    const double bump = amplitude * radius * std::pow(1 - rho2, 3);
    Vec3 y = x;
    for (int d = 0; d < 3; ++d) y[d] += bump * std::cos(pi * xi[(d + 1) % 3]);
    return y;
  };
}

}  // namespace dgmax
