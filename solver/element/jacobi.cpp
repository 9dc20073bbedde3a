#include "solver/element/jacobi.hpp"

#include <cmath>

#include "solver/util/error.hpp"

namespace dgmax {

namespace {

// Squared norm of the un-normalized P_0 = 1 under the Jacobi weight:
// 2^(a+b+1)/(a+b+1) Γ(a+1)Γ(b+1)/Γ(a+b+1). Done in log space so that large a (up to 2N+2 with
// N = 15 in the tet basis, more for safety) cannot overflow Γ.
double gamma0(double a, double b) {
  return std::exp((a + b + 1.0) * std::log(2.0) - std::log(a + b + 1.0) + std::lgamma(a + 1.0) +
                  std::lgamma(b + 1.0) - std::lgamma(a + b + 1.0));
}

}  // namespace

Eigen::VectorXd jacobi_p(const Eigen::VectorXd& x, double alpha, double beta, int n) {
  DGMAX_ASSERT(n >= 0, "Jacobi polynomial degree must be non-negative");
  DGMAX_ASSERT(alpha > -1.0 && beta > -1.0 && std::abs(alpha + beta + 1.0) > 1e-12,
               "unsupported Jacobi parameters");
  const double a = alpha, b = beta;
  // Three-term recurrence on normalized polynomials (HW eq. A.2 ff.): stable for all x in [-1,1].
  const double g0 = gamma0(a, b);
  Eigen::ArrayXd p_prev = Eigen::ArrayXd::Constant(x.size(), 1.0 / std::sqrt(g0));
  if (n == 0) return p_prev.matrix();
  const double g1 = (a + 1.0) * (b + 1.0) / (a + b + 3.0) * g0;
  Eigen::ArrayXd p = ((a + b + 2.0) * x.array() / 2.0 + (a - b) / 2.0) / std::sqrt(g1);
  double a_old = 2.0 / (2.0 + a + b) * std::sqrt((a + 1.0) * (b + 1.0) / (a + b + 3.0));
  for (int i = 1; i < n; ++i) {
    const double h1 = 2.0 * i + a + b;
    const double a_new = 2.0 / (h1 + 2.0) *
                         std::sqrt((i + 1.0) * (i + 1.0 + a + b) * (i + 1.0 + a) * (i + 1.0 + b) /
                                   (h1 + 1.0) / (h1 + 3.0));
    const double b_new = -(a * a - b * b) / h1 / (h1 + 2.0);
    Eigen::ArrayXd p_next = (-a_old * p_prev + (x.array() - b_new) * p) / a_new;
    p_prev = std::move(p);
    p = std::move(p_next);
    a_old = a_new;
  }
  return p.matrix();
}

Eigen::VectorXd grad_jacobi_p(const Eigen::VectorXd& x, double alpha, double beta, int n) {
  if (n == 0) return Eigen::VectorXd::Zero(x.size());
  // d/dx P_n^{(a,b)} = sqrt(n(n+a+b+1)) P_{n-1}^{(a+1,b+1)} for the normalized family.
  return std::sqrt(n * (n + alpha + beta + 1.0)) * jacobi_p(x, alpha + 1.0, beta + 1.0, n - 1);
}

GaussRule jacobi_gq(double alpha, double beta, int n) {
  DGMAX_ASSERT(n >= 0, "Gauss rule needs n >= 0");
  GaussRule rule;
  rule.x.resize(n + 1);
  rule.w.resize(n + 1);
  const double a = alpha, b = beta;
  if (n == 0) {
    // One point: the weight's mean and mass (HW's listing has (a-b)/(a+b+2) and w = 2, which are
    // right only for a = b = 0).
    rule.x(0) = (b - a) / (a + b + 2.0);
    rule.w(0) = gamma0(a, b);
    return rule;
  }
  // Golub–Welsch: the nodes are the eigenvalues of the symmetric tridiagonal Jacobi matrix of the
  // recurrence, the weights the squared first eigenvector components times the weight's mass.
  Eigen::VectorXd diag(n + 1), sub(n);
  // Diagonal: -(a^2-b^2)/((h1+2) h1) with h1 = 2i+a+b; at i = 0 it simplifies to (b-a)/(a+b+2),
  // which avoids the 0/0 of the general formula when a + b = 0.
  diag(0) = (b - a) / (a + b + 2.0);
  for (int i = 1; i <= n; ++i) {
    const double h1 = 2.0 * i + a + b;
    diag(i) = -(a * a - b * b) / (h1 + 2.0) / h1;
  }
  for (int i = 1; i <= n; ++i) {
    const double h1 = 2.0 * (i - 1) + a + b;
    sub(i - 1) = 2.0 / (h1 + 2.0) *
                 std::sqrt(i * (i + a + b) * (i + a) * (i + b) / (h1 + 1.0) / (h1 + 3.0));
  }
  Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eig;
  eig.computeFromTridiagonal(diag, sub, Eigen::ComputeEigenvectors);
  DGMAX_ASSERT(eig.info() == Eigen::Success, "Jacobi matrix eigensolve failed");
  rule.x = eig.eigenvalues();  // ascending
  const double mass = gamma0(a, b);
  for (int i = 0; i <= n; ++i) {
    const double v0 = eig.eigenvectors()(0, i);
    rule.w(i) = v0 * v0 * mass;
  }
  return rule;
}

Eigen::VectorXd jacobi_gl(double alpha, double beta, int n) {
  DGMAX_ASSERT(n >= 1, "Gauss–Lobatto rule needs n >= 1");
  Eigen::VectorXd x(n + 1);
  x(0) = -1.0;
  x(n) = 1.0;
  if (n >= 2) x.segment(1, n - 1) = jacobi_gq(alpha + 1.0, beta + 1.0, n - 2).x;
  return x;
}

}  // namespace dgmax
