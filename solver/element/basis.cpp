#include "solver/element/basis.hpp"

#include <cmath>

#include "solver/element/jacobi.hpp"
#include "solver/element/nodes.hpp"
#include "solver/util/error.hpp"

namespace dgmax {

namespace {

// Below this the collapsed coordinate is taken at its degenerate value. The modes that depend on
// it carry a factor (1-b)^i resp. ((1-b)/2)^i ((1-c)/2)^(i+j) that vanishes there, so the choice
// only has to keep a and b bounded; exact zero tests (as in HW) would let a = O(1/eps) through
// for points a rounding error away from the collapsed edge.
constexpr double kCollapseTol = 1e-13;

}  // namespace

void rs_to_ab(const Eigen::VectorXd& r, const Eigen::VectorXd& s, Eigen::VectorXd& a,
              Eigen::VectorXd& b) {
  DGMAX_ASSERT(r.size() == s.size(), "coordinate arrays differ in length");
  a.resize(r.size());
  for (Eigen::Index n = 0; n < r.size(); ++n)
    a(n) = (std::abs(1.0 - s(n)) > kCollapseTol) ? 2.0 * (1.0 + r(n)) / (1.0 - s(n)) - 1.0 : -1.0;
  b = s;
}

void rst_to_abc(const Eigen::VectorXd& r, const Eigen::VectorXd& s, const Eigen::VectorXd& t,
                Eigen::VectorXd& a, Eigen::VectorXd& b, Eigen::VectorXd& c) {
  DGMAX_ASSERT(r.size() == s.size() && r.size() == t.size(), "coordinate arrays differ in length");
  a.resize(r.size());
  b.resize(r.size());
  for (Eigen::Index n = 0; n < r.size(); ++n) {
    a(n) = (std::abs(s(n) + t(n)) > kCollapseTol) ? 2.0 * (1.0 + r(n)) / (-s(n) - t(n)) - 1.0
                                                  : -1.0;
    b(n) = (std::abs(1.0 - t(n)) > kCollapseTol) ? 2.0 * (1.0 + s(n)) / (1.0 - t(n)) - 1.0 : -1.0;
  }
  c = t;
}

Eigen::VectorXd simplex2d_p(const Eigen::VectorXd& a, const Eigen::VectorXd& b, int i, int j) {
  const Eigen::ArrayXd h1 = jacobi_p(a, 0.0, 0.0, i).array();
  const Eigen::ArrayXd h2 = jacobi_p(b, 2.0 * i + 1.0, 0.0, j).array();
  return (std::sqrt(2.0) * h1 * h2 * (1.0 - b.array()).pow(i)).matrix();
}

Eigen::VectorXd simplex3d_p(const Eigen::VectorXd& a, const Eigen::VectorXd& b,
                            const Eigen::VectorXd& c, int i, int j, int k) {
  const Eigen::ArrayXd h1 = jacobi_p(a, 0.0, 0.0, i).array();
  const Eigen::ArrayXd h2 = jacobi_p(b, 2.0 * i + 1.0, 0.0, j).array();
  const Eigen::ArrayXd h3 = jacobi_p(c, 2.0 * (i + j) + 2.0, 0.0, k).array();
  return (2.0 * std::sqrt(2.0) * h1 * h2 * (1.0 - b.array()).pow(i) * h3 *
          (1.0 - c.array()).pow(i + j))
      .matrix();
}

void grad_simplex3d_p(const Eigen::VectorXd& a, const Eigen::VectorXd& b,
                      const Eigen::VectorXd& c, int i, int j, int k, Eigen::VectorXd& dr,
                      Eigen::VectorXd& ds, Eigen::VectorXd& dt) {
  // Chain rule through the collapsed map (HW GradSimplex3DP); the negative powers of (1-b) and
  // (1-c) that the chain rule produces cancel against the mode's own factors, written here with
  // the reduced exponents so that nothing is divided.
  const Eigen::ArrayXd fa = jacobi_p(a, 0.0, 0.0, i).array();
  const Eigen::ArrayXd dfa = grad_jacobi_p(a, 0.0, 0.0, i).array();
  const Eigen::ArrayXd gb = jacobi_p(b, 2.0 * i + 1.0, 0.0, j).array();
  const Eigen::ArrayXd dgb = grad_jacobi_p(b, 2.0 * i + 1.0, 0.0, j).array();
  const Eigen::ArrayXd hc = jacobi_p(c, 2.0 * (i + j) + 2.0, 0.0, k).array();
  const Eigen::ArrayXd dhc = grad_jacobi_p(c, 2.0 * (i + j) + 2.0, 0.0, k).array();
  const Eigen::ArrayXd hb = 0.5 * (1.0 - b.array());  // [npts]
  const Eigen::ArrayXd hcc = 0.5 * (1.0 - c.array());  // [npts]
  const Eigen::ArrayXd pa = 0.5 * (1.0 + a.array());
  const Eigen::ArrayXd pb = 0.5 * (1.0 + b.array());

  // d/dr
  Eigen::ArrayXd vr = dfa * gb * hc;
  if (i > 0) vr *= hb.pow(i - 1);
  if (i + j > 0) vr *= hcc.pow(i + j - 1);
  // d/ds
  Eigen::ArrayXd tmp = dgb * hb.pow(i);
  if (i > 0) tmp += (-0.5 * i) * gb * hb.pow(i - 1);
  if (i + j > 0) tmp *= hcc.pow(i + j - 1);
  tmp = fa * tmp * hc;
  Eigen::ArrayXd vs = pa * vr + tmp;
  // d/dt
  Eigen::ArrayXd vt = pa * vr + pb * tmp;
  Eigen::ArrayXd tmp2 = dhc * hcc.pow(i + j);
  if (i + j > 0) tmp2 -= 0.5 * (i + j) * hc * hcc.pow(i + j - 1);
  tmp2 = fa * gb * tmp2 * hb.pow(i);
  vt += tmp2;
  // Normalization: the factors of 1/2 taken out above, and 2 sqrt(2) of the mode.
  const double scale = std::pow(2.0, 2 * i + j + 1.5);
  dr = (scale * vr).matrix();
  ds = (scale * vs).matrix();
  dt = (scale * vt).matrix();
}

Eigen::MatrixXd vandermonde_2d(int N, const Eigen::VectorXd& r, const Eigen::VectorXd& s) {
  Eigen::VectorXd a, b;
  rs_to_ab(r, s, a, b);
  Eigen::MatrixXd V(r.size(), num_nodes_2d(N));  // [npts][Np2]
  int m = 0;
  for (int i = 0; i <= N; ++i)
    for (int j = 0; j <= N - i; ++j) V.col(m++) = simplex2d_p(a, b, i, j);
  return V;
}

Eigen::MatrixXd vandermonde_3d(int N, const Eigen::VectorXd& r, const Eigen::VectorXd& s,
                               const Eigen::VectorXd& t) {
  Eigen::VectorXd a, b, c;
  rst_to_abc(r, s, t, a, b, c);
  Eigen::MatrixXd V(r.size(), num_nodes_3d(N));  // [npts][Np]
  int m = 0;
  for (int i = 0; i <= N; ++i)
    for (int j = 0; j <= N - i; ++j)
      for (int k = 0; k <= N - i - j; ++k) V.col(m++) = simplex3d_p(a, b, c, i, j, k);
  return V;
}

GradVandermonde3D grad_vandermonde_3d(int N, const Eigen::VectorXd& r, const Eigen::VectorXd& s,
                                      const Eigen::VectorXd& t) {
  Eigen::VectorXd a, b, c;
  rst_to_abc(r, s, t, a, b, c);
  const int Np = num_nodes_3d(N);
  GradVandermonde3D g;
  g.Vr.resize(r.size(), Np);  // [npts][Np]
  g.Vs.resize(r.size(), Np);
  g.Vt.resize(r.size(), Np);
  int m = 0;
  Eigen::VectorXd dr, ds, dt;
  for (int i = 0; i <= N; ++i)
    for (int j = 0; j <= N - i; ++j)
      for (int k = 0; k <= N - i - j; ++k) {
        grad_simplex3d_p(a, b, c, i, j, k, dr, ds, dt);
        g.Vr.col(m) = dr;
        g.Vs.col(m) = ds;
        g.Vt.col(m) = dt;
        ++m;
      }
  return g;
}

}  // namespace dgmax
