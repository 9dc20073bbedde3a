// One-dimensional orthogonal polynomials and quadrature (Hesthaven & Warburton 2008, ch. 3 and
// appendix A): everything the simplex bases and the node construction are built from.
#pragma once

#include <Eigen/Dense>

namespace dgmax {

// Normalized Jacobi polynomial P_n^{(alpha,beta)}(x), orthonormal on [-1,1] with weight
// (1-x)^alpha (1+x)^beta (HW JacobiP). alpha, beta > -1, alpha + beta != -1, n >= 0.
// x: [npts] -> [npts]
Eigen::VectorXd jacobi_p(const Eigen::VectorXd& x, double alpha, double beta, int n);

// d/dx P_n^{(alpha,beta)}(x) of the normalized polynomial above (HW GradJacobiP).
// x: [npts] -> [npts]
Eigen::VectorXd grad_jacobi_p(const Eigen::VectorXd& x, double alpha, double beta, int n);

// A one-dimensional quadrature rule on [-1,1], nodes ascending.
struct GaussRule {
  Eigen::VectorXd x;  // [n+1] nodes
  Eigen::VectorXd w;  // [n+1] weights (for the weight function (1-x)^alpha (1+x)^beta)
};

// Gauss–Jacobi quadrature with n+1 points (exact for degree 2n+1), HW JacobiGQ, computed with
// the Golub–Welsch eigenvalue method. Nodes are accurate to rounding; weights to rounding in the
// absolute sense (relative to the largest weight), which for strongly skewed weights (alpha of
// ~30) leaves the tiniest weights with large relative errors. The library only needs the nodes
// (jacobi_gl); the weights are exact to ~1e-14 for the moderate parameters tested.
GaussRule jacobi_gq(double alpha, double beta, int n);

// Gauss–Lobatto–Jacobi nodes, n+1 points including both ends (HW JacobiGL): the interior ones are
// the Gauss nodes of P^{(alpha+1,beta+1)}. n >= 1. -> [n+1], ascending.
Eigen::VectorXd jacobi_gl(double alpha, double beta, int n);

}  // namespace dgmax
