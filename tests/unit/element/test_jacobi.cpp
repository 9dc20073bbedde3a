// Jacobi polynomials and Gauss rules (solver/element/jacobi.hpp).
#include <gtest/gtest.h>

#include <cmath>

#include "solver/element/jacobi.hpp"
#include "tests/unit/element/element_test_util.hpp"

namespace dgmax {
namespace {

// Orthonormality of P_n^{(a,b)} for the parameter pairs the simplex bases use: (0,0), (2i+1,0),
// (2(i+j)+2,0) with i + j <= 15, and two others. Integrated with the tests' own Gauss–Legendre
// rule applied to the weighted polynomial (1-x)^a (1+x)^b P_m P_n (integer a, b), so that neither
// jacobi_gq nor its weights are involved.
TEST(Jacobi, Orthonormal) {
  const int params[][2] = {{0, 0}, {1, 0}, {5, 0}, {13, 0}, {31, 0}, {32, 0}, {1, 1}, {2, 3}};
  for (const auto& ab : params) {
    const int nmax = 15;
    const test::Rule1D g = test::gauss_legendre(nmax + (ab[0] + ab[1]) / 2 + 2);
    Eigen::VectorXd x(g.x.size()), w(g.x.size());
    for (size_t q = 0; q < g.x.size(); ++q) {
      x(q) = g.x[q];
      w(q) = g.w[q] * std::pow(1.0 - g.x[q], ab[0]) * std::pow(1.0 + g.x[q], ab[1]);
    }
    Eigen::MatrixXd P(x.size(), nmax + 1);  // [nq][nmax+1]
    for (int n = 0; n <= nmax; ++n) P.col(n) = jacobi_p(x, ab[0], ab[1], n);
    const Eigen::MatrixXd G = P.transpose() * w.asDiagonal() * P;
    EXPECT_LT((G - Eigen::MatrixXd::Identity(nmax + 1, nmax + 1)).cwiseAbs().maxCoeff(), 1e-12)
        << "alpha=" << ab[0] << " beta=" << ab[1];
  }
}

// Gauss–Legendre from jacobi_gq agrees with the independent Newton-based rule of the tests, and
// integrates x^k exactly up to k = 2n+1.
TEST(Jacobi, GaussLegendreMatchesIndependentRule) {
  for (int n = 0; n <= 20; ++n) {
    const GaussRule g = jacobi_gq(0.0, 0.0, n);
    const test::Rule1D ref = test::gauss_legendre(n + 1);
    // The Newton rule is in descending order.
    for (int i = 0; i <= n; ++i) {
      EXPECT_NEAR(g.x(i), ref.x[n - i], 1e-14) << "n=" << n;
      EXPECT_NEAR(g.w(i), ref.w[n - i], 1e-14) << "n=" << n;
    }
    for (int k = 0; k <= 2 * n + 1; ++k) {
      const double exact = (k % 2 == 1) ? 0.0 : 2.0 / (k + 1.0);
      EXPECT_NEAR(g.w.dot(g.x.array().pow(k).matrix()), exact, 1e-14) << "n=" << n << " k=" << k;
    }
  }
}

// Gauss–Jacobi with weight (1-x)^a integrates x^k, k <= 2n+1, exactly: for integer a the reference
// value is a Gauss–Legendre rule applied to the polynomial (1-x)^a x^k.
TEST(Jacobi, GaussJacobiWeightedExactness) {
  for (int a = 1; a <= 6; ++a)
    for (int n = 0; n <= 10; ++n) {
      const GaussRule g = jacobi_gq(a, 0.0, n);
      const test::Rule1D ref = test::gauss_legendre(n + a + 2);
      for (int k = 0; k <= 2 * n + 1; ++k) {
        double exact = 0.0;
        for (size_t q = 0; q < ref.x.size(); ++q)
          exact += ref.w[q] * std::pow(1.0 - ref.x[q], a) * std::pow(ref.x[q], k);
        const double got = g.w.dot(g.x.array().pow(k).matrix());
        EXPECT_NEAR(got, exact, 1e-13 * std::max(1.0, std::abs(exact))) << a << " " << n << " " << k;
      }
    }
  // One point: the weight's mean and mass.
  const GaussRule g1 = jacobi_gq(2.0, 0.0, 0);
  EXPECT_NEAR(g1.x(0), -0.5, 1e-15);  // ∫(1-x)^2 x / ∫(1-x)^2 = -1/2
  EXPECT_NEAR(g1.w(0), 8.0 / 3.0, 1e-14);
}

// Derivative against a central difference, and the Gauss–Lobatto nodes as the zeros of P_N'.
TEST(Jacobi, GradientAndLobattoNodes) {
  Eigen::VectorXd x = Eigen::VectorXd::LinSpaced(41, -0.99, 0.99);
  const double h = 1e-6;
  for (double a : {0.0, 3.0, 12.0})
    for (int n = 0; n <= 15; ++n) {
      const Eigen::VectorXd d = grad_jacobi_p(x, a, 0.0, n);
      const Eigen::VectorXd xp = (x.array() + h).matrix(), xm = (x.array() - h).matrix();
      const Eigen::VectorXd fd = (jacobi_p(xp, a, 0.0, n) - jacobi_p(xm, a, 0.0, n)) / (2 * h);
      EXPECT_LT((d - fd).cwiseAbs().maxCoeff(), 1e-5 * std::max(1.0, d.cwiseAbs().maxCoeff()))
          << "a=" << a << " n=" << n;
    }
  for (int N = 1; N <= 15; ++N) {
    const Eigen::VectorXd xgl = jacobi_gl(0.0, 0.0, N);
    ASSERT_EQ(xgl.size(), N + 1);
    EXPECT_EQ(xgl(0), -1.0);
    EXPECT_EQ(xgl(N), 1.0);
    for (int i = 0; i < N; ++i) EXPECT_LT(xgl(i), xgl(i + 1));
    if (N >= 2) {
      const Eigen::VectorXd interior = xgl.segment(1, N - 1);
      EXPECT_LT(grad_jacobi_p(interior, 0.0, 0.0, N).cwiseAbs().maxCoeff(), 1e-11) << "N=" << N;
    }
    // Symmetric about 0.
    EXPECT_LT((xgl + xgl.reverse()).cwiseAbs().maxCoeff(), 1e-14);
  }
}

}  // namespace
}  // namespace dgmax
