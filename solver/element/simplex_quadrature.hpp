// Quadrature on the reference triangle and tetrahedron of reference_element.hpp, of any degree:
// Stroud's conical products (Gauss–Jacobi rules in collapsed coordinates), exact for polynomials
// of the given total degree. Used where the curved elements' integrals must be exact for the
// polynomial geometry (curved_geometry.hpp); not symmetric, so faces shared by two elements lay
// the rule out from a canonical vertex order (see CurvedFactors).
#pragma once

#include <Eigen/Dense>

namespace dgmax {

struct SimplexRule {
  Eigen::VectorXd r, s, t;  // [n] points (t unused on the triangle)
  Eigen::VectorXd w;        // [n] weights: they sum to the area 2 / the volume 4/3
};

// Exact for total degree <= degree (0 <= degree <= 60).
SimplexRule triangle_rule(int degree);
SimplexRule tetrahedron_rule(int degree);

}  // namespace dgmax
