#include "solver/mesh/curved_lattice.hpp"

#include "solver/element/basis.hpp"
#include "solver/mesh/mesh.hpp"
#include "solver/util/error.hpp"

namespace dgmax {

int lattice_size(int q) { return (q + 1) * (q + 2) * (q + 3) / 6; }

int lattice_index(int q, int i, int j, int l) {
  DGMAX_ASSERT(i >= 0 && j >= 0 && l >= 0 && i + j + l <= q, "lattice_index: not a lattice point");
  // points before layer l: all (i, j) of the layers l' < l, layer l' holding (q-l'+1)(q-l'+2)/2
  int index = 0;
  for (int m = 0; m < l; ++m) index += (q - m + 1) * (q - m + 2) / 2;
  // rows before row j in layer l: row j' holds q - l - j' + 1 points
  for (int m = 0; m < j; ++m) index += q - l - m + 1;
  return index + i;
}

std::vector<std::array<int, 3>> lattice_points(int q) {
  std::vector<std::array<int, 3>> points;
  points.reserve(lattice_size(q));
  for (int l = 0; l <= q; ++l)
    for (int j = 0; j + l <= q; ++j)
      for (int i = 0; i + j + l <= q; ++i) points.push_back({i, j, l});
  return points;
}

void lattice_reference_points(int q, Eigen::VectorXd& r, Eigen::VectorXd& s, Eigen::VectorXd& t) {
  const auto points = lattice_points(q);
  const int n = static_cast<int>(points.size());
  r.resize(n);
  s.resize(n);
  t.resize(n);
  for (int m = 0; m < n; ++m) {
    r(m) = -1.0 + 2.0 * points[m][0] / q;
    s(m) = -1.0 + 2.0 * points[m][1] / q;
    t(m) = -1.0 + 2.0 * points[m][2] / q;
  }
}

Eigen::MatrixXd lattice_interpolation(int q, const Eigen::VectorXd& r, const Eigen::VectorXd& s,
                                      const Eigen::VectorXd& t) {
  DGMAX_ASSERT(q >= 1 && q <= kMaxGeometryOrder, "lattice_interpolation: unsupported geometry order");
  Eigen::VectorXd lr, ls, lt;
  lattice_reference_points(q, lr, ls, lt);
  // ℓ(x) = V(x) V_lattice^{-1} in the orthonormal basis (well conditioned for q <= 10 equispaced)
  const Eigen::MatrixXd V = vandermonde_3d(q, lr, ls, lt);
  const Eigen::MatrixXd Vx = vandermonde_3d(q, r, s, t);
  return V.transpose().partialPivLu().solve(Vx.transpose()).transpose();
}

void lattice_gradient(int q, const Eigen::VectorXd& r, const Eigen::VectorXd& s, const Eigen::VectorXd& t,
                      Eigen::MatrixXd& Lr, Eigen::MatrixXd& Ls, Eigen::MatrixXd& Lt) {
  DGMAX_ASSERT(q >= 1 && q <= kMaxGeometryOrder, "lattice_gradient: unsupported geometry order");
  Eigen::VectorXd lr, ls, lt;
  lattice_reference_points(q, lr, ls, lt);
  // dℓ/dr = Vr(x) V_lattice^{-1} in the orthonormal basis
  const auto lu = vandermonde_3d(q, lr, ls, lt).transpose().partialPivLu();
  const GradVandermonde3D G = grad_vandermonde_3d(q, r, s, t);
  Lr = lu.solve(G.Vr.transpose()).transpose();
  Ls = lu.solve(G.Vs.transpose()).transpose();
  Lt = lu.solve(G.Vt.transpose()).transpose();
}

void face_points(int f, const std::vector<std::array<double, 3>>& mu, Eigen::VectorXd& r, Eigen::VectorXd& s,
                 Eigen::VectorXd& t) {
  constexpr double kVertex[4][3] = {{-1, -1, -1}, {1, -1, -1}, {-1, 1, -1}, {-1, -1, 1}};
  const int n = static_cast<int>(mu.size());
  r.resize(n);
  s.resize(n);
  t.resize(n);
  for (int i = 0; i < n; ++i) {
    double x[3] = {0, 0, 0};
    for (int m = 0; m < 3; ++m)
      for (int d = 0; d < 3; ++d) x[d] += mu[i][m] * kVertex[kFaceVertices[f][m]][d];
    r(i) = x[0];
    s(i) = x[1];
    t(i) = x[2];
  }
}

std::vector<int> lattice_vertex_swap(int q, int a, int b) {
  DGMAX_ASSERT(a >= 0 && a < 4 && b >= 0 && b < 4, "lattice_vertex_swap: vertices are 0..3");
  const auto points = lattice_points(q);
  std::vector<int> perm(points.size());
  for (size_t m = 0; m < points.size(); ++m) {
    // barycentric integers (n0, n1, n2, n3) of the new point m; the old point had a and b swapped
    std::array<int, 4> n = {q - points[m][0] - points[m][1] - points[m][2], points[m][0], points[m][1],
                            points[m][2]};
    std::swap(n[a], n[b]);
    perm[m] = lattice_index(q, n[1], n[2], n[3]);
  }
  return perm;
}

}  // namespace dgmax
