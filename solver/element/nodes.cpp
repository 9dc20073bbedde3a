#include "solver/element/nodes.hpp"

#include <array>
#include <cmath>
#include <numbers>

#include "solver/element/jacobi.hpp"
#include "solver/util/error.hpp"

namespace dgmax {

namespace {

// Optimized blend parameters, index N-1 (HW Nodes2D alpopt and Nodes3D alphastore).
constexpr std::array<double, 15> kAlpha2D = {0.0000, 0.0000, 1.4152, 0.1001, 0.2751,
                                             0.9800, 1.0999, 1.2832, 1.3648, 1.4773,
                                             1.4959, 1.5743, 1.5770, 1.6223, 1.6258};
constexpr std::array<double, 15> kAlpha3D = {0.0,    0.0,    0.0,     0.1002, 1.1332,
                                             1.5608, 1.3413, 1.2577,  1.1603, 1.10153,
                                             0.6080, 0.4523, 0.8856,  0.8717, 0.9655};

// The 1D warp divided by (1 - x^2): w(x) = sum_i (xGL_i - xeq_i) l_i^eq(x) / (1 - x^2), with l^eq
// the Lagrange polynomials of the N+1 equidistant points. The displacement vanishes at both ends,
// so the division is exact: dropping the end factors from the interior l_i gives a polynomial of
// degree N-2 that is smooth up to |x| = 1 (HW evalwarp; Nodes2D's Warpfactor computes the same
// thing through a Vandermonde solve).
class EdgeWarp {
 public:
  explicit EdgeWarp(int N) : N_(N), xeq_(N + 1), d_(N + 1) {
    const Eigen::VectorXd xgl = jacobi_gl(0.0, 0.0, N);  // [N+1] ascending
    for (int i = 0; i <= N; ++i) {
      xeq_(i) = -1.0 + 2.0 * i / N;
      d_(i) = xgl(i) - xeq_(i);
    }
  }
  double operator()(double x) const {
    double w = 0.0;
    for (int i = 1; i < N_; ++i) {
      double li = d_(i);
      for (int j = 1; j < N_; ++j)
        if (j != i) li *= (x - xeq_(j)) / (xeq_(i) - xeq_(j));
      // (x - xeq_0)(x - xeq_N) / ((xeq_i - xeq_0)(xeq_i - xeq_N)) = (x^2-1)/(xeq_i^2-1), and we
      // divide by (1 - x^2): what remains is 1 / (1 - xeq_i^2).
      w += li / (1.0 - xeq_(i) * xeq_(i));
    }
    return w;
  }

 private:
  int N_;
  Eigen::VectorXd xeq_;  // [N+1] equidistant points
  Eigen::VectorXd d_;    // [N+1] Gauss–Lobatto minus equidistant
};

// Warp & blend displacement inside an equilateral triangle with barycentric coordinates
// (L1, L2, L3) of vertices top (0, 2/sqrt3), left (-1, -1/sqrt3), right (1, -1/sqrt3); edge
// opposite vertex k is warped towards Gauss–Lobatto spacing, blended by the product of the other
// two coordinates and amplified in the interior by (1 + (alpha Lk)^2) (HW Nodes2D / evalshift).
std::array<double, 2> triangle_shift(const EdgeWarp& warp, double alpha, double L1, double L2,
                                     double L3) {
  const double w1 = 4.0 * L2 * L3 * warp(L3 - L2) * (1.0 + (alpha * L1) * (alpha * L1));
  const double w2 = 4.0 * L1 * L3 * warp(L1 - L3) * (1.0 + (alpha * L2) * (alpha * L2));
  const double w3 = 4.0 * L1 * L2 * warp(L2 - L1) * (1.0 + (alpha * L3) * (alpha * L3));
  constexpr double pi = std::numbers::pi;
  const double c2 = std::cos(2.0 * pi / 3.0), s2 = std::sin(2.0 * pi / 3.0);
  const double c4 = std::cos(4.0 * pi / 3.0), s4 = std::sin(4.0 * pi / 3.0);
  return {w1 + c2 * w2 + c4 * w3, s2 * w2 + s4 * w3};
}

void check_order(int N) {
  DGMAX_ASSERT(N >= 1, "node sets need polynomial order N >= 1");
}

}  // namespace

double warp_blend_alpha_2d(int N) {
  check_order(N);
  return N <= 15 ? kAlpha2D[N - 1] : 5.0 / 3.0;
}

double warp_blend_alpha_3d(int N) {
  check_order(N);
  return N <= 15 ? kAlpha3D[N - 1] : 1.0;
}

Eigen::MatrixXd equidistant_nodes_2d(int N) {
  check_order(N);
  Eigen::MatrixXd rs(num_nodes_2d(N), 2);  // [Np2][2]
  int k = 0;
  for (int j = 0; j <= N; ++j)        // s index (outer)
    for (int i = 0; i <= N - j; ++i) {  // r index (fastest)
      rs(k, 0) = -1.0 + 2.0 * i / N;
      rs(k, 1) = -1.0 + 2.0 * j / N;
      ++k;
    }
  return rs;
}

Eigen::MatrixXd equidistant_nodes_3d(int N) {
  check_order(N);
  Eigen::MatrixXd rst(num_nodes_3d(N), 3);  // [Np][3]
  int n = 0;
  for (int k = 0; k <= N; ++k)              // t layer (outermost)
    for (int j = 0; j <= N - k; ++j)        // s row
      for (int i = 0; i <= N - k - j; ++i) {  // r (fastest)
        rst(n, 0) = -1.0 + 2.0 * i / N;
        rst(n, 1) = -1.0 + 2.0 * j / N;
        rst(n, 2) = -1.0 + 2.0 * k / N;
        ++n;
      }
  return rst;
}

Eigen::MatrixXd warp_blend_nodes_2d(int N) { return warp_blend_nodes_2d(N, warp_blend_alpha_2d(N)); }

Eigen::MatrixXd warp_blend_nodes_2d(int N, double alpha) {
  const Eigen::MatrixXd eq = equidistant_nodes_2d(N);  // [Np2][2]
  const EdgeWarp warp(N);
  const double sq3 = std::sqrt(3.0);
  Eigen::MatrixXd rs(eq.rows(), 2);  // [Np2][2]
  for (int n = 0; n < eq.rows(); ++n) {
    // Barycentric coordinates: L1 <-> vertex (-1,1), L2 <-> (-1,-1), L3 <-> (1,-1).
    const double L1 = (1.0 + eq(n, 1)) / 2.0;
    const double L3 = (1.0 + eq(n, 0)) / 2.0;
    const double L2 = 1.0 - L1 - L3;
    // Equilateral triangle, warp there (where the construction is symmetric), then map back.
    double x = -L2 + L3;
    double y = (-L2 - L3 + 2.0 * L1) / sq3;
    const auto d = triangle_shift(warp, alpha, L1, L2, L3);
    x += d[0];
    y += d[1];
    const double M1 = (sq3 * y + 1.0) / 3.0;
    const double M2 = (-3.0 * x - sq3 * y + 2.0) / 6.0;
    const double M3 = (3.0 * x - sq3 * y + 2.0) / 6.0;
    rs(n, 0) = -M2 + M3 - M1;
    rs(n, 1) = -M2 - M3 + M1;
  }
  return rs;
}

Eigen::MatrixXd warp_blend_nodes_3d(int N) { return warp_blend_nodes_3d(N, warp_blend_alpha_3d(N)); }

Eigen::MatrixXd warp_blend_nodes_3d(int N, double alpha) {
  const Eigen::MatrixXd eq = equidistant_nodes_3d(N);  // [Np][3]
  const EdgeWarp warp(N);
  const double tol = 1e-10;
  using V3 = Eigen::Vector3d;
  // Regular tetrahedron with edge 2, vertices matching reference vertices 0..3.
  const V3 v1(-1.0, -1.0 / std::sqrt(3.0), -1.0 / std::sqrt(6.0));
  const V3 v2(1.0, -1.0 / std::sqrt(3.0), -1.0 / std::sqrt(6.0));
  const V3 v3(0.0, 2.0 / std::sqrt(3.0), -1.0 / std::sqrt(6.0));
  const V3 v4(0.0, 0.0, 3.0 / std::sqrt(6.0));
  // Orthonormal tangents of each face; t1 runs from the face's "left" to its "right" vertex and t2
  // towards its "top" vertex, matching triangle_shift's frame for (Lb, Lc, Ld) below.
  std::array<V3, 4> t1 = {v2 - v1, v2 - v1, v3 - v2, v3 - v1};
  std::array<V3, 4> t2 = {v3 - 0.5 * (v1 + v2), v4 - 0.5 * (v1 + v2), v4 - 0.5 * (v2 + v3),
                          v4 - 0.5 * (v1 + v3)};
  for (int f = 0; f < 4; ++f) {
    t1[f].normalize();
    t2[f].normalize();
  }

  Eigen::MatrixXd rst(eq.rows(), 3);  // [Np][3]
  for (int n = 0; n < eq.rows(); ++n) {
    const double r = eq(n, 0), s = eq(n, 1), t = eq(n, 2);
    // Barycentric coordinates: L1 <-> v4 (t = 1), L2 <-> v3 (s = 1), L3 <-> v1, L4 <-> v2 (r = 1).
    const double L1 = (1.0 + t) / 2.0, L2 = (1.0 + s) / 2.0;
    const double L3 = -(1.0 + r + s + t) / 2.0, L4 = (1.0 + r) / 2.0;
    V3 xyz = L3 * v1 + L4 * v2 + L2 * v3 + L1 * v4;
    V3 shift = V3::Zero();
    // Face f: La = the coordinate that vanishes on it; (Lb, Lc, Ld) = (top, left, right).
    const std::array<std::array<double, 4>, 4> L = {{{L1, L2, L3, L4},
                                                     {L2, L1, L3, L4},
                                                     {L3, L1, L4, L2},
                                                     {L4, L1, L3, L2}}};
    for (int f = 0; f < 4; ++f) {
      const double La = L[f][0], Lb = L[f][1], Lc = L[f][2], Ld = L[f][3];
      const auto w = triangle_shift(warp, alpha, Lb, Lc, Ld);
      // Face warp extended into the volume with a blend that is 1 on the face and 0 on the
      // other three faces, amplified in the interior by (1 + (alpha La)^2).
      double blend = Lb * Lc * Ld;
      const double denom = (Lb + 0.5 * La) * (Lc + 0.5 * La) * (Ld + 0.5 * La);
      if (denom > tol) blend = (1.0 + (alpha * La) * (alpha * La)) * blend / denom;
      shift += blend * (w[0] * t1[f] + w[1] * t2[f]);
      // On an edge or vertex of this face every blend vanishes (0/0): use the face warp alone,
      // which is the same from both faces sharing the edge.
      const int positive = (Lb > tol) + (Lc > tol) + (Ld > tol);
      if (La < tol && positive < 3) shift = w[0] * t1[f] + w[1] * t2[f];
    }
    xyz += shift;
    // Back to (r, s, t): xyz = v1 + A (rst + 1) with A = [v2-v1, v3-v1, v4-v1] / 2.
    Eigen::Matrix3d A;
    A.col(0) = 0.5 * (v2 - v1);
    A.col(1) = 0.5 * (v3 - v1);
    A.col(2) = 0.5 * (v4 - v1);
    const V3 rst_n = A.partialPivLu().solve(xyz - v1) - V3::Ones();
    rst.row(n) = rst_n.transpose();
  }
  return rst;
}

}  // namespace dgmax
