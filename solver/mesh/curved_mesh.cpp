#include "solver/mesh/curved_mesh.hpp"

#include <algorithm>
#include <cmath>

#include "solver/mesh/curved_lattice.hpp"
#include "solver/mesh/geometry.hpp"
#include "solver/util/error.hpp"
#include "solver/util/strings.hpp"
#include "solver/element/basis.hpp"
#include "solver/element/simplex_quadrature.hpp"

namespace dgmax {

void swap_element_vertices(Mesh& mesh, int k, int a, int b) {
  std::swap(mesh.elements[k][a], mesh.elements[k][b]);
  if (!mesh.is_curved(k)) return;
  const int q = mesh.geometry_order, nq = lattice_size(q);
  Vec3* row = mesh.curved_points.data() + static_cast<size_t>(mesh.curved_index[k]) * nq;
  const std::vector<Vec3> old(row, row + nq);
  const std::vector<int> perm = lattice_vertex_swap(q, a, b);
  for (int m = 0; m < nq; ++m) row[m] = old[perm[m]];
}

Eigen::Matrix<double, Eigen::Dynamic, 3> lattice_positions(const Mesh& mesh, int k) {
  const int nq = lattice_size(mesh.geometry_order);
  Eigen::Matrix<double, Eigen::Dynamic, 3> P(nq, 3);
  const Vec3* row = mesh.curved_row(k);
  for (int m = 0; m < nq; ++m) P.row(m) << row[m][0], row[m][1], row[m][2];
  return P;
}

Vec3 map_element(const Mesh& mesh, int k, double r, double s, double t) {
  if (!mesh.is_curved(k)) return map_to_physical(mesh, k, r, s, t);
  Eigen::VectorXd rr(1), ss(1), tt(1);
  rr << r;
  ss << s;
  tt << t;
  const Eigen::MatrixXd L = lattice_interpolation(mesh.geometry_order, rr, ss, tt);  // [1][Nq]
  const Vec3* row = mesh.curved_row(k);
  Vec3 x{0, 0, 0};
  for (int m = 0; m < L.cols(); ++m)
    for (int d = 0; d < 3; ++d) x[d] += L(0, m) * row[m][d];
  return x;
}

namespace {
double longest_edge_of(const Mesh& mesh, int k) {
  double h = 0;
  for (int a = 0; a < 4; ++a)
    for (int b = a + 1; b < 4; ++b) {
      double d2 = 0;
      for (int d = 0; d < 3; ++d) {
        const double e = mesh.vertices[mesh.elements[k][a]][d] - mesh.vertices[mesh.elements[k][b]][d];
        d2 += e * e;
      }
      h = std::max(h, std::sqrt(d2));
    }
  return h;
}
}  // namespace

int drop_affine_elements(Mesh& mesh, double rel_tol) {
  if (mesh.curved_index.empty()) return 0;
  const int q = mesh.geometry_order, nq = lattice_size(q), K = mesh.num_elements();
  Eigen::VectorXd r, s, t;
  lattice_reference_points(q, r, s, t);
  std::vector<Vec3> kept;
  int n = 0;
  for (int k = 0; k < K; ++k) {
    if (mesh.curved_index[k] < 0) continue;
    const Vec3* row = mesh.curved_row(k);
    const double tol = rel_tol * longest_edge_of(mesh, k);
    bool affine = true;
    for (int m = 0; m < nq && affine; ++m) {
      const Vec3 x = map_to_physical(mesh, k, r(m), s(m), t(m));
      for (int d = 0; d < 3; ++d) affine = affine && std::abs(row[m][d] - x[d]) <= tol;
    }
    if (affine) {
      mesh.curved_index[k] = -1;
      continue;
    }
    kept.insert(kept.end(), row, row + nq);
    mesh.curved_index[k] = n++;
  }
  mesh.curved_points = std::move(kept);
  if (n == 0) mesh.curved_index.clear();
  return n;
}

bool face_is_affine(const Mesh& mesh, int k, int f, double rel_tol) {
  if (!mesh.is_curved(k)) return true;
  const int q = mesh.geometry_order;
  const std::vector<std::array<int, 3>> lattice = lattice_points(q);
  Eigen::VectorXd r, s, t;
  lattice_reference_points(q, r, s, t);
  const Vec3* row = mesh.curved_row(k);
  const double tol = rel_tol * longest_edge_of(mesh, k);
  for (size_t m = 0; m < lattice.size(); ++m) {
    const auto [i, j, l] = lattice[m];
    // face 0: t = -1, face 1: s = -1, face 2: λ0 = 0, face 3: r = -1 (mesh.hpp's numbering)
    const bool on = f == 0 ? l == 0 : f == 1 ? j == 0 : f == 2 ? i + j + l == q : i == 0;
    if (!on) continue;
    const Vec3 x = map_to_physical(mesh, k, r(m), s(m), t(m));
    for (int d = 0; d < 3; ++d)
      if (std::abs(row[m][d] - x[d]) > tol) return false;
  }
  return true;
}

CurvedMeasures curved_measures(const Mesh& mesh) {
  CurvedMeasures out;
  if (mesh.curved_index.empty()) return out;
  const int q = mesh.geometry_order, nq = lattice_size(q), Kc = static_cast<int>(mesh.curved_points.size() / nq);
  out.volume.assign(Kc, 0.0);
  out.area.assign(Kc, {0, 0, 0, 0});
  const SimplexRule vol = tetrahedron_rule(3 * (q - 1));
  Eigen::MatrixXd Lr, Ls, Lt;
  lattice_gradient(q, vol.r, vol.s, vol.t, Lr, Ls, Lt);
  const SimplexRule tri = triangle_rule(4 * q + 4);
  std::vector<std::array<double, 3>> mu(tri.w.size());
  for (size_t i = 0; i < mu.size(); ++i) mu[i] = {-(tri.r(i) + tri.s(i)) / 2, (1 + tri.r(i)) / 2, (1 + tri.s(i)) / 2};
  Eigen::MatrixXd Fr[4], Fs[4], Ft[4];
  for (int f = 0; f < 4; ++f) {
    Eigen::VectorXd r, s, t;
    face_points(f, mu, r, s, t);
    lattice_gradient(q, r, s, t, Fr[f], Fs[f], Ft[f]);
  }
  for (int k = 0; k < mesh.num_elements(); ++k) {
    if (!mesh.is_curved(k)) continue;
    const int c = mesh.curved_index[k];
    const Eigen::Matrix<double, Eigen::Dynamic, 3> P = lattice_positions(mesh, k);  // [Nq][3]
    const Eigen::Matrix<double, Eigen::Dynamic, 3> Xr = Lr * P, Xs = Ls * P, Xt = Lt * P;
    for (int i = 0; i < vol.w.size(); ++i)
      out.volume[c] += vol.w(i) * Xr.row(i).dot(Xs.row(i).cross(Xt.row(i)));
    for (int f = 0; f < 4; ++f) {
      const Eigen::Matrix<double, Eigen::Dynamic, 3> Yr = Fr[f] * P, Ys = Fs[f] * P, Yt = Ft[f] * P;
      for (int i = 0; i < tri.w.size(); ++i) {
        const auto C = cofactor_rows(Yr.row(i).transpose(), Ys.row(i).transpose(), Yt.row(i).transpose());
        out.area[c][f] += tri.w(i) * face_normal_times_sJ(f, C).norm();
      }
    }
  }
  return out;
}

JacobianSamples jacobian_samples(int q) {
  JacobianSamples out;
  lattice_reference_points(2 * q + 2, out.r, out.s, out.t);
  lattice_gradient(q, out.r, out.s, out.t, out.Lr, out.Ls, out.Lt);
  return out;
}

ElementJacobian element_jacobian(const Mesh& mesh, int k, const JacobianSamples& samples, double sign) {
  const Eigen::Matrix<double, Eigen::Dynamic, 3> X = lattice_positions(mesh, k);  // [Nq][3]
  const Eigen::MatrixXd Xr = samples.Lr * X, Xs = samples.Ls * X, Xt = samples.Lt * X;  // [npts][3]
  ElementJacobian out;
  double hi = 0;
  for (int i = 0; i < samples.r.size(); ++i) {
    const Eigen::Vector3d a = Xr.row(i), b = Xs.row(i), c = Xt.row(i);
    const double det = sign * a.dot(b.cross(c));
    if (std::isnan(det)) {  // a broken lattice: tangled, whatever the other samples say
      out.min_det = det;
      out.min_sample = i;
      break;
    }
    if (i == 0 || det < out.min_det) {
      out.min_det = det;
      out.min_sample = i;
    }
    hi = i == 0 ? det : std::max(hi, det);
  }
  out.scaled = out.min_det / hi;
  return out;
}

CurvedJacobianStats check_curved_jacobians(const Mesh& mesh) {
  CurvedJacobianStats stats;
  if (mesh.curved_index.empty()) return stats;
  const JacobianSamples samples = jacobian_samples(mesh.geometry_order);
  for (int k = 0; k < mesh.num_elements(); ++k) {
    if (!mesh.is_curved(k)) continue;
    const ElementJacobian jac = element_jacobian(mesh, k, samples);
    if (!(jac.min_det > 0)) {
      const int i = jac.min_sample;
      const Vec3 x = map_element(mesh, k, samples.r(i), samples.s(i), samples.t(i));
      throw UserError("mesh '" + mesh.source + "': curved element " + std::to_string(k) +
                          " is tangled or inverted: its Jacobian is " + fmt_g(jac.min_det) + " at (" + fmt_g(x[0]) +
                          ", " + fmt_g(x[1]) + ", " + fmt_g(x[2]) + ")",
                      {mesh.source},
                      "re-mesh with Gmsh's high-order optimisation (`Mesh.HighOrderOptimize = 2;` in the "
                      ".geo, or `gmsh -3 -order q -optimize_ho`), or a lower geometry order");
    }
    ++stats.curved;
    if (stats.curved == 1 || jac.scaled < stats.min_scaled) {
      stats.min_scaled = jac.scaled;
      stats.min_element = k;
    }
    stats.max_scaled = stats.curved == 1 ? jac.scaled : std::max(stats.max_scaled, jac.scaled);
  }
  return stats;
}

}  // namespace dgmax
