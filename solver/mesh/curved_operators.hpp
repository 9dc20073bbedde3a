// The quadrature form's right-hand side of one curved element (curved_geometry.hpp) as matrices.
// The form is linear in the element's nodal state U [Np][6] and its face integrals S [Np][6]:
//   rhs = W (Pq curl(U) + M^{-1} S),   W = Pq diag(1/J) Vq  (P_N((1/J) ·), the weight-adjusted inverse)
// and the volume curl at the points, Σ_a C_a × ∂_a u, gathers per cofactor component b into
// S_b = Pq Σ_a diag(C_a^b) G_a, so that (P_N J curl H)_x = S_y H_z − S_z H_y and so on. The
// generated kernels apply A_b = W S_b and L = W M^{-1} (four Np x Np matrices per element) instead
// of the points' steps: the same operator to rounding, about a third of the flops per stage
// (bench/NOTES.md, "The curved group as four matrices per element").
#pragma once

#include <Eigen/Dense>

#include "solver/mesh/curved_geometry.hpp"

namespace dgmax {

struct CurvedOperators {
  Eigen::MatrixXd curl[3];  // [Np][Np] A_b = W S_b, b = x, y, z
  Eigen::MatrixXd lift;     // [Np][Np] L = W M^{-1}
};

// The operators of curved slot c (0 <= c < cf.count()).
CurvedOperators curved_operators(const CurvedFactors& cf, int c);

}  // namespace dgmax
