// Warp & blend nodes (solver/element/nodes.hpp).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "solver/element/jacobi.hpp"
#include "solver/element/nodes.hpp"

namespace dgmax {
namespace {

// Barycentric coordinates of a tet node, ordered as the reference vertices 0..3.
Eigen::Vector4d bary3(const Eigen::RowVector3d& p) {
  return {-(1.0 + p(0) + p(1) + p(2)) / 2.0, (1.0 + p(0)) / 2.0, (1.0 + p(1)) / 2.0,
          (1.0 + p(2)) / 2.0};
}

TEST(Nodes, AlphaTables) {
  // Spot values from HW Nodes2D / Nodes3D, and the fallbacks past N = 15.
  EXPECT_DOUBLE_EQ(warp_blend_alpha_2d(3), 1.4152);
  EXPECT_DOUBLE_EQ(warp_blend_alpha_2d(15), 1.6258);
  EXPECT_DOUBLE_EQ(warp_blend_alpha_2d(16), 5.0 / 3.0);
  EXPECT_DOUBLE_EQ(warp_blend_alpha_3d(3), 0.0);
  EXPECT_DOUBLE_EQ(warp_blend_alpha_3d(4), 0.1002);
  EXPECT_DOUBLE_EQ(warp_blend_alpha_3d(10), 1.10153);
  EXPECT_DOUBLE_EQ(warp_blend_alpha_3d(15), 0.9655);
  EXPECT_DOUBLE_EQ(warp_blend_alpha_3d(16), 1.0);
}

// Counts, HW ordering (r fastest, then s, then t), vertices at the documented indices, and every
// node inside the closed simplex.
TEST(Nodes, CountOrderVerticesInside) {
  for (int N = 1; N <= 15; ++N) {
    const Eigen::MatrixXd rs = warp_blend_nodes_2d(N);
    const Eigen::MatrixXd rst = warp_blend_nodes_3d(N);
    ASSERT_EQ(rs.rows(), (N + 1) * (N + 2) / 2);
    ASSERT_EQ(rs.cols(), 2);
    ASSERT_EQ(rst.rows(), (N + 1) * (N + 2) * (N + 3) / 6);
    ASSERT_EQ(rst.cols(), 3);

    // Order: the warped nodes keep the order of the lattice they are warped from; check the
    // lattice's order (t layer outermost, then s, r fastest) here and its trace in the warped
    // nodes below.
    const Eigen::MatrixXd eq = equidistant_nodes_3d(N);
    int n = 0;
    for (int k = 0; k <= N; ++k)
      for (int j = 0; j <= N - k; ++j)
        for (int i = 0; i <= N - k - j; ++i, ++n) {
          EXPECT_NEAR(eq(n, 0), -1.0 + 2.0 * i / N, 1e-15);
          EXPECT_NEAR(eq(n, 1), -1.0 + 2.0 * j / N, 1e-15);
          EXPECT_NEAR(eq(n, 2), -1.0 + 2.0 * k / N, 1e-15);
        }
    // Nodes on the layer t = -1 come first, then those with s = -1 within each later layer...
    const int Nfp = (N + 1) * (N + 2) / 2;
    for (int m = 0; m < Nfp; ++m) EXPECT_NEAR(rst(m, 2), -1.0, 1e-13) << "N=" << N;
    // ...and the first node of each r-row lies on r = -1 (the warp keeps boundary nodes on the
    // boundary), the last of each row on r + s + t = -1.
    n = 0;
    for (int k = 0; k <= N; ++k)
      for (int j = 0; j <= N - k; ++j) {
        EXPECT_NEAR(rst(n, 0), -1.0, 1e-13);
        n += N - k - j + 1;
        EXPECT_NEAR(rst(n - 1, 0) + rst(n - 1, 1) + rst(n - 1, 2), -1.0, 1e-13);
      }

    const int Np = rst.rows();
    const int vid[4] = {0, N, Nfp - 1, Np - 1};
    const double vert[4][3] = {{-1, -1, -1}, {1, -1, -1}, {-1, 1, -1}, {-1, -1, 1}};
    for (int v = 0; v < 4; ++v)
      for (int d = 0; d < 3; ++d) EXPECT_NEAR(rst(vid[v], d), vert[v][d], 1e-14);
    EXPECT_NEAR(rs(0, 0), -1.0, 1e-14);
    EXPECT_NEAR(rs(N, 0), 1.0, 1e-14);
    EXPECT_NEAR(rs(Nfp - 1, 1), 1.0, 1e-14);

    for (int m = 0; m < Np; ++m) EXPECT_GE(bary3(rst.row(m)).minCoeff(), -1e-13);
    for (int m = 0; m < rs.rows(); ++m) {
      EXPECT_GE(rs(m, 0), -1.0 - 1e-13);
      EXPECT_GE(rs(m, 1), -1.0 - 1e-13);
      EXPECT_LE(rs(m, 0) + rs(m, 1), 1e-13);
    }
    // Distinct: no two nodes closer than a fraction of the smallest GLL spacing.
    double dmin = 1e300;
    for (int a = 0; a < Np; ++a)
      for (int b = a + 1; b < Np; ++b) dmin = std::min(dmin, (rst.row(a) - rst.row(b)).norm());
    const Eigen::VectorXd gll = jacobi_gl(0, 0, N);
    EXPECT_GT(dmin, 0.5 * (gll(1) - gll(0))) << "N=" << N;
  }
}

// Every edge carries the Gauss–Lobatto–Legendre nodes (this is what the warp is built for).
TEST(Nodes, EdgesAreGaussLobatto) {
  for (int N = 1; N <= 15; ++N) {
    const Eigen::VectorXd gll = jacobi_gl(0, 0, N);  // [N+1] ascending
    const Eigen::MatrixXd rst = warp_blend_nodes_3d(N);
    // Edge v0-v1 (s = t = -1): nodes 0..N, r ascending.
    for (int i = 0; i <= N; ++i) {
      EXPECT_NEAR(rst(i, 0), gll(i), 1e-13) << "N=" << N;
      EXPECT_NEAR(rst(i, 1), -1.0, 1e-13);
      EXPECT_NEAR(rst(i, 2), -1.0, 1e-13);
    }
    const Eigen::MatrixXd rs = warp_blend_nodes_2d(N);
    for (int i = 0; i <= N; ++i) {
      EXPECT_NEAR(rs(i, 0), gll(i), 1e-13);
      EXPECT_NEAR(rs(i, 1), -1.0, 1e-13);
    }
    // Edge v0-v3 (r = s = -1) in the tet: the first node of each t layer.
    int n = 0;
    for (int k = 0; k <= N; ++k) {
      EXPECT_NEAR(rst(n, 2), gll(k), 1e-13);
      EXPECT_NEAR(rst(n, 0), -1.0, 1e-13);
      EXPECT_NEAR(rst(n, 1), -1.0, 1e-13);
      n += (N - k + 1) * (N - k + 2) / 2;
    }
  }
}

// The node sets are invariant under the symmetries of the simplex: permuting the barycentric
// coordinates maps the set onto itself.
TEST(Nodes, SymmetricUnderVertexPermutations) {
  for (int N = 1; N <= 12; ++N) {
    const Eigen::MatrixXd rst = warp_blend_nodes_3d(N);
    const int Np = rst.rows();
    std::vector<Eigen::Vector4d> L(Np);
    for (int m = 0; m < Np; ++m) L[m] = bary3(rst.row(m));
    int perm[4] = {0, 1, 2, 3};
    double worst = 0.0;
    do {
      for (int m = 0; m < Np; ++m) {
        Eigen::Vector4d P;
        for (int q = 0; q < 4; ++q) P(q) = L[m](perm[q]);
        double best = 1e300;
        for (int o = 0; o < Np; ++o) best = std::min(best, (L[o] - P).norm());
        worst = std::max(worst, best);
      }
    } while (std::next_permutation(perm, perm + 4));
    EXPECT_LT(worst, 1e-13) << "N=" << N;
  }
}

// For N <= 2 the warp is zero (GLL = equidistant), so the nodes are the lattice.
TEST(Nodes, LowOrderEqualsLattice) {
  for (int N = 1; N <= 2; ++N) {
    EXPECT_LT((warp_blend_nodes_3d(N) - equidistant_nodes_3d(N)).cwiseAbs().maxCoeff(), 1e-15);
    EXPECT_LT((warp_blend_nodes_2d(N) - equidistant_nodes_2d(N)).cwiseAbs().maxCoeff(), 1e-15);
  }
  // alpha = 0 and alpha != 0 differ from N = 4 on (interior nodes exist away from the centroid).
  EXPECT_GT((warp_blend_nodes_3d(5, 0.0) - warp_blend_nodes_3d(5)).cwiseAbs().maxCoeff(), 1e-3);
}

}  // namespace
}  // namespace dgmax
