// Geometric factors of the curved elements at the nodes of the order-N reference element: the
// map x(r, s, t) is the degree-q polynomial of the element's lattice (curved_lattice.hpp),
// interpolated at the N nodes (exact for q <= N), differentiated with Dr, Ds, Dt; the metric by
// the cross products of its columns (Hesthaven & Warburton 2008, GeometricFactors3D, node by
// node), the normals and surface Jacobians at each face node as Normals3D computes them.
//
// How the factors enter the right-hand side (docs/design.md, "Curved elements"): the volume term
// uses the node's own metric; the surface term is M_J^{-1} ∮ l_i flux sJ, with the curved mass
// matrix M_J approximated as M diag(J) (the weight-adjusted form collocated at the nodes), so
//   rhs_i = (∇ × fields)_i + (1/J_i) Σ_j LIFT_ij sJ_j flux_j,
// which for an affine element is today's LIFT · (Fscale · flux), Fscale = sJ / J.
#pragma once

#include <vector>

#include "solver/element/reference_element.hpp"
#include "solver/mesh/mesh.hpp"

namespace dgmax {

struct CurvedFactors {
  int Np = 0, Nfp = 0;
  std::vector<int> elements;  // [Kc] the curved elements, increasing
  std::vector<int> slot_of;   // [K] index into elements, -1 for an affine element
  std::vector<double> drdx;   // [Kc][9][Np] rx ry rz sx sy sz tx ty tz at node i
  std::vector<double> J;      // [Kc][Np] det(dx/dr) at node i
  std::vector<double> normal; // [Kc][4][Nfp][3] outward unit normal at face node j
  std::vector<double> sJ;     // [Kc][4][Nfp] surface Jacobian at face node j (area / 2, as geometry.hpp)

  int count() const { return static_cast<int>(elements.size()); }
  bool empty() const { return elements.empty(); }
  double metric(int c, int m, int i) const { return drdx[(static_cast<size_t>(c) * 9 + m) * Np + i]; }
  double jacobian(int c, int i) const { return J[static_cast<size_t>(c) * Np + i]; }
  const double* face_normal(int c, int f, int j) const { return &normal[((static_cast<size_t>(c) * 4 + f) * Nfp + j) * 3]; }
  double face_sJ(int c, int f, int j) const { return sJ[(static_cast<size_t>(c) * 4 + f) * Nfp + j]; }
};

// The lattice's Lagrange basis at the reference nodes: [Np][lattice_size(q)].
Eigen::MatrixXd curved_interpolation(const Mesh& mesh, const RefElement& ref);
// Node positions of curved element k, L = curved_interpolation(...): X: [Np][3].
Eigen::Matrix<double, Eigen::Dynamic, 3> curved_node_positions(const Mesh& mesh, int k, const Eigen::MatrixXd& L);

// The factors of every curved element of `mesh` (none: empty). Throws UserError naming the element
// and the node where J <= 0 (the map interpolated at the N nodes can fold where q > N).
CurvedFactors compute_curved_factors(const Mesh& mesh, const RefElement& ref);

}  // namespace dgmax
