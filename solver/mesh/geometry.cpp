#include "solver/mesh/geometry.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "solver/mesh/parallel_fill.hpp"
#include "solver/util/error.hpp"

namespace dgmax {

double signed_volume(const Mesh& mesh, int k) {
  const auto& e = mesh.elements[k];
  const Vec3& a = mesh.vertices[e[0]];
  double u[3][3];
  for (int i = 0; i < 3; ++i)
    for (int d = 0; d < 3; ++d) u[i][d] = mesh.vertices[e[i + 1]][d] - a[d];
  const double det = u[0][0] * (u[1][1] * u[2][2] - u[1][2] * u[2][1]) -
                     u[0][1] * (u[1][0] * u[2][2] - u[1][2] * u[2][0]) +
                     u[0][2] * (u[1][0] * u[2][1] - u[1][1] * u[2][0]);
  return det / 6.0;
}

Vec3 map_to_physical(const Mesh& mesh, int k, double r, double s, double t) {
  const auto& e = mesh.elements[k];
  const double w[4] = {-(1 + r + s + t) / 2, (1 + r) / 2, (1 + s) / 2, (1 + t) / 2};
  Vec3 x{0, 0, 0};
  for (int i = 0; i < 4; ++i)
    for (int d = 0; d < 3; ++d) x[d] += w[i] * mesh.vertices[e[i]][d];
  return x;
}

namespace {

// dx/dr of element k: A[d][j] = d x_d / d r_j, and its determinant.
double jacobian(const Mesh& mesh, int k, double A[3][3]) {
  const auto& e = mesh.elements[k];
  const Vec3& v0 = mesh.vertices[e[0]];
  // columns of dx/dr: xr = (v1 - v0)/2, xs = (v2 - v0)/2, xt = (v3 - v0)/2
  for (int j = 0; j < 3; ++j)
    for (int d = 0; d < 3; ++d) A[d][j] = 0.5 * (mesh.vertices[e[j + 1]][d] - v0[d]);
  return A[0][0] * (A[1][1] * A[2][2] - A[1][2] * A[2][1]) -
         A[0][1] * (A[1][0] * A[2][2] - A[1][2] * A[2][0]) +
         A[0][2] * (A[1][0] * A[2][1] - A[1][1] * A[2][0]);
}

}  // namespace

ElementGeometry element_geometry(const Mesh& mesh, int k) {
  ElementGeometry g;
  double A[3][3];
  const double J = jacobian(mesh, k, A);
  g.J = J;
  if (!(J > 0)) return g;
  // inverse: (dr/dx)[j][d] = cofactor(A)[d][j] / J
  double inv[3][3];
  for (int j = 0; j < 3; ++j)
    for (int d = 0; d < 3; ++d) {
      const int j1 = (j + 1) % 3, j2 = (j + 2) % 3, d1 = (d + 1) % 3, d2 = (d + 2) % 3;
      inv[j][d] = (A[d1][j1] * A[d2][j2] - A[d1][j2] * A[d2][j1]) / J;
    }
  for (int j = 0; j < 3; ++j)
    for (int d = 0; d < 3; ++d) g.drdx[3 * j + d] = inv[j][d];
  // Outward normals in reference form: face 0 (t=-1): -grad t, face 1 (s=-1): -grad s,
  // face 2 (r+s+t=-1): grad(r+s+t), face 3 (r=-1): -grad r.
  for (int f = 0; f < 4; ++f) {
    Vec3 n;
    for (int d = 0; d < 3; ++d) {
      switch (f) {
        case 0: n[d] = -inv[2][d]; break;
        case 1: n[d] = -inv[1][d]; break;
        case 2: n[d] = inv[0][d] + inv[1][d] + inv[2][d]; break;
        default: n[d] = -inv[0][d]; break;
      }
    }
    const double len = std::sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
    for (int d = 0; d < 3; ++d) g.normal[f][d] = n[d] / len;
    g.sJ[f] = len * J;
    g.Fscale[f] = len;  // sJ / J
  }
  return g;
}

namespace {

[[noreturn]] void throw_non_positive_jacobian(const Mesh& mesh, int k) {
  double A[3][3];
  throw UserError("element " + std::to_string(k) + " has non-positive Jacobian " + std::to_string(jacobian(mesh, k, A)) +
                      " after orientation",
                  {mesh.source}, "the mesh contains a degenerate element");
}

}  // namespace

Geometry compute_geometry(const Mesh& mesh) {
  const int K = mesh.num_elements();
  Geometry g;
  resize_parallel(g.J, K);
  resize_parallel(g.drdx, K);
  resize_parallel(g.normal, K);
  resize_parallel(g.sJ, K);
  resize_parallel(g.Fscale, K);
  int first_bad = K;  // first element with J <= 0
#pragma omp parallel for schedule(static) reduction(min : first_bad)
  for (int k = 0; k < K; ++k) {
    const ElementGeometry e = element_geometry(mesh, k);
    if (!(e.J > 0)) {
      first_bad = std::min(first_bad, k);
      continue;
    }
    g.J[k] = e.J;
    g.drdx[k] = e.drdx;
    g.normal[k] = e.normal;
    g.sJ[k] = e.sJ;
    g.Fscale[k] = e.Fscale;
  }
  if (first_bad < K) throw_non_positive_jacobian(mesh, first_bad);
  return g;
}

void check_jacobians(const Mesh& mesh) {
  const int K = mesh.num_elements();
  int first_bad = K;
#pragma omp parallel for schedule(static) reduction(min : first_bad)
  for (int k = 0; k < K; ++k) {
    double A[3][3];
    if (!(jacobian(mesh, k, A) > 0)) first_bad = std::min(first_bad, k);
  }
  if (first_bad < K) throw_non_positive_jacobian(mesh, first_bad);
}

}  // namespace dgmax
