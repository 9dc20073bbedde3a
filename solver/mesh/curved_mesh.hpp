// Operations on a mesh's curved elements (Mesh::curved_index / curved_points): keeping their
// lattice consistent when vertices are reordered, dropping the ones that are affine after all,
// and the check that every curved map is invertible.
#pragma once

#include <Eigen/Dense>
#include <array>
#include <string>
#include <vector>

#include "solver/mesh/mesh.hpp"

namespace dgmax {

// Swaps local vertices a and b of element k, and its lattice positions with them.
void swap_element_vertices(Mesh& mesh, int k, int a, int b);

// Curved element k's lattice positions as a matrix: [lattice_size(q)][3].
Eigen::Matrix<double, Eigen::Dynamic, 3> lattice_positions(const Mesh& mesh, int k);

// Element k's position at reference (r, s, t) from its lattice (curved) or its vertices (affine).
Vec3 map_element(const Mesh& mesh, int k, double r, double s, double t);

// Marks affine every curved element whose lattice points lie on the affine map of its vertices
// within rel_tol × its longest edge, and compacts curved_points; clears curved_index when none
// is left (geometry_order stays, for the report). Returns how many stay curved.
int drop_affine_elements(Mesh& mesh, double rel_tol = 1e-10);

// Whether face f of element k lies on the affine map of its three vertices (its lattice points
// on the face within rel_tol × the element's longest edge, as drop_affine_elements): true for
// every face of an affine element. A curved element can have affine faces.
bool face_is_affine(const Mesh& mesh, int k, int f, double rel_tol = 1e-10);

// Volume and face areas of the curved elements on their curved maps (the straight-sided ones'
// are geometry.hpp's): volume [Kc] exact for the polynomial J, area [Kc][4] by a rule of degree
// 4q + 4 (|n sJ| is not a polynomial), in curved_index order.
struct CurvedMeasures {
  std::vector<double> volume;
  std::vector<std::array<double, 4>> area;
};
CurvedMeasures curved_measures(const Mesh& mesh);

// The Jacobian of the curved elements' maps, sampled at the lattice of order 2q + 2 (corners,
// edges, faces, interior): the smallest and largest scaled Jacobian min det / max det of one
// element over the curved elements (1 for a straight-sided one).
struct CurvedJacobianStats {
  int curved = 0;
  double min_scaled = 1, max_scaled = 1;
  int min_element = -1;  // the element with the smallest one
};
// The points where the Jacobian is sampled (the lattice of order 2q + 2) and the derivatives of the
// order-q lattice map there: Lr, Ls, Lt: [npts][lattice_size(q)].
struct JacobianSamples {
  Eigen::VectorXd r, s, t;
  Eigen::MatrixXd Lr, Ls, Lt;
};
JacobianSamples jacobian_samples(int q);

// Curved element k's Jacobian determinant at the samples, each times `sign` (the orientation of
// its vertices, +1 once setup has oriented them): the smallest one, where it is (a sample index),
// and min / max, the scaled Jacobian (not positive: tangled or inverted).
struct ElementJacobian {
  double min_det = 0, scaled = 0;
  int min_sample = 0;
};
ElementJacobian element_jacobian(const Mesh& mesh, int k, const JacobianSamples& samples, double sign = 1);

// Throws UserError naming the element and the position where the Jacobian is not positive (a
// tangled or inverted curved element), with a hint to re-mesh with high-order optimisation.
CurvedJacobianStats check_curved_jacobians(const Mesh& mesh);

}  // namespace dgmax
