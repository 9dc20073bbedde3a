// Quadrature on the reference triangle and tetrahedron of reference_element.hpp, exact for
// polynomials of the given total degree. Used where the curved elements' integrals must be exact
// for the polynomial geometry (curved_geometry.hpp).
//
// triangle_rule / tetrahedron_rule give Witherden & Vincent's fully symmetric rules (positive
// weights, points inside; symmetric_rules_data.hpp) up to degree 20: 2-3x fewer points than the
// conical products on the tetrahedron, 1.3-1.5x on the triangle (bench/NOTES.md, "2026-12-06 —
// Symmetric quadrature for curved elements"); beyond, or where no tabulated rule has fewer points,
// the conical product. Faces shared by two elements still lay the rule out from a canonical vertex
// order (see CurvedFactors): the conical product is not symmetric.
#pragma once

#include <Eigen/Dense>

namespace dgmax {

struct SimplexRule {
  Eigen::VectorXd r, s, t;  // [n] points (t unused on the triangle)
  Eigen::VectorXd w;        // [n] weights: they sum to the area 2 / the volume 4/3
};

// Exact for total degree <= degree (0 <= degree <= 60): the rule of fewest points of both kinds.
SimplexRule triangle_rule(int degree);
SimplexRule tetrahedron_rule(int degree);

// Stroud's conical products (Gauss–Jacobi rules in collapsed coordinates), (degree/2 + 1)^2 and
// (degree/2 + 1)^3 points; exact for total degree <= degree (0 <= degree <= 60).
SimplexRule conical_triangle_rule(int degree);
SimplexRule conical_tetrahedron_rule(int degree);

}  // namespace dgmax
