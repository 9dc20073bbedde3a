// Orthonormal PKDO bases and Vandermonde matrices (solver/element/basis.hpp).
#include <gtest/gtest.h>

#include "solver/element/basis.hpp"
#include "solver/element/nodes.hpp"
#include "tests/unit/element/element_test_util.hpp"

namespace dgmax {
namespace {

// Gram matrix of the tet modes under the tests' own collapsed Gauss–Legendre rule = identity.
// (N = 15 is covered by the mass-matrix exactness test, which needs orthonormality.)
TEST(Basis, TetModesOrthonormal) {
  for (int N : {1, 4, 8, 10, 12}) {
    const test::RuleTet q = test::tet_quadrature(N + 2);  // exact to degree 2N+1
    const Eigen::MatrixXd V = vandermonde_3d(N, q.rst.col(0), q.rst.col(1), q.rst.col(2));
    const Eigen::MatrixXd G = V.transpose() * q.w.asDiagonal() * V;
    EXPECT_LT((G - Eigen::MatrixXd::Identity(G.rows(), G.cols())).cwiseAbs().maxCoeff(), 1e-12)
        << "N=" << N;
  }
}

TEST(Basis, TriangleModesOrthonormal) {
  for (int N : {1, 4, 8, 10, 15}) {
    const test::RuleTri q = test::tri_quadrature(N + 2);  // exact to degree 2N+2
    const Eigen::MatrixXd V = vandermonde_2d(N, q.rs.col(0), q.rs.col(1));
    const Eigen::MatrixXd G = V.transpose() * q.w.asDiagonal() * V;
    EXPECT_LT((G - Eigen::MatrixXd::Identity(G.rows(), G.cols())).cwiseAbs().maxCoeff(), 1e-12)
        << "N=" << N;
  }
}

// GradV3D against central differences of V3D at random interior points.
TEST(Basis, GradientMatchesFiniteDifferences) {
  const Eigen::MatrixXd p = test::random_tet_points(50, 7);  // [50][3]
  const Eigen::VectorXd r = p.col(0), s = p.col(1), t = p.col(2);
  const double h = 1e-6;
  for (int N : {1, 3, 6, 10}) {
    const GradVandermonde3D g = grad_vandermonde_3d(N, r, s, t);
    const Eigen::VectorXd e = Eigen::VectorXd::Constant(r.size(), h);
    const Eigen::MatrixXd fr = (vandermonde_3d(N, r + e, s, t) - vandermonde_3d(N, r - e, s, t)) / (2 * h);
    const Eigen::MatrixXd fs = (vandermonde_3d(N, r, s + e, t) - vandermonde_3d(N, r, s - e, t)) / (2 * h);
    const Eigen::MatrixXd ft = (vandermonde_3d(N, r, s, t + e) - vandermonde_3d(N, r, s, t - e)) / (2 * h);
    const double scale = std::max({1.0, g.Vr.cwiseAbs().maxCoeff(), g.Vs.cwiseAbs().maxCoeff(),
                                   g.Vt.cwiseAbs().maxCoeff()});
    EXPECT_LT((g.Vr - fr).cwiseAbs().maxCoeff(), 1e-6 * scale) << "N=" << N;
    EXPECT_LT((g.Vs - fs).cwiseAbs().maxCoeff(), 1e-6 * scale) << "N=" << N;
    EXPECT_LT((g.Vt - ft).cwiseAbs().maxCoeff(), 1e-6 * scale) << "N=" << N;
  }
}

// The collapsed edges and the top vertex are handled: modes stay finite there and agree with
// their limits from inside (values at a point 1e-9 away).
TEST(Basis, FiniteOnCollapsedEdges) {
  const int N = 8;
  // Top vertex (t = 1), edge r = -1 & s + t = 0, and a point on it.
  Eigen::VectorXd r(3), s(3), t(3);
  r << -1.0, -1.0, -1.0;
  s << -1.0, 0.0, -0.6;
  t << 1.0, 0.0, 0.6;
  Eigen::VectorXd ri = r, si = s, ti = t;
  ri(0) += 1e-9; si(0) += 1e-9; ti(0) -= 3e-9;
  ri(1) += 1e-9; si(1) -= 1e-9; ti(1) -= 1e-9;
  ri(2) += 1e-9; si(2) -= 1e-9; ti(2) -= 1e-9;
  const Eigen::MatrixXd V = vandermonde_3d(N, r, s, t);
  const Eigen::MatrixXd Vi = vandermonde_3d(N, ri, si, ti);
  ASSERT_TRUE(V.allFinite());
  EXPECT_LT((V - Vi).cwiseAbs().maxCoeff(), 1e-5);
  const GradVandermonde3D g = grad_vandermonde_3d(N, r, s, t);
  const GradVandermonde3D gi = grad_vandermonde_3d(N, ri, si, ti);
  ASSERT_TRUE(g.Vr.allFinite() && g.Vs.allFinite() && g.Vt.allFinite());
  EXPECT_LT((g.Vr - gi.Vr).cwiseAbs().maxCoeff(), 1e-3);
  EXPECT_LT((g.Vs - gi.Vs).cwiseAbs().maxCoeff(), 1e-3);
  EXPECT_LT((g.Vt - gi.Vt).cwiseAbs().maxCoeff(), 1e-3);
}

// First mode is the constant 1/sqrt(volume): 1/sqrt(4/3) on the tet, 1/sqrt(2) on the triangle.
TEST(Basis, ConstantMode) {
  const Eigen::MatrixXd p = test::random_tet_points(10, 3);
  const Eigen::MatrixXd V = vandermonde_3d(3, p.col(0), p.col(1), p.col(2));
  EXPECT_LT((V.col(0).array() - std::sqrt(3.0 / 4.0)).abs().maxCoeff(), 1e-15);
  const Eigen::MatrixXd V2 = vandermonde_2d(3, p.col(0) * 0.3, p.col(1) * 0.3);
  EXPECT_LT((V2.col(0).array() - std::sqrt(0.5)).abs().maxCoeff(), 1e-15);
}

}  // namespace
}  // namespace dgmax
