// Geometric factors of the curved elements. The map x(r, s, t) is the degree-q polynomial of the
// element's lattice (curved_lattice.hpp).
//
// At the nodes of the order-N reference element (the map interpolated there, exact for q <= N):
// metric, J, and each face node's normal and sJ, as Hesthaven & Warburton's GeometricFactors3D
// and Normals3D compute them node by node. For node positions, probes, the step and output.
//
// At quadrature points (the right-hand side: docs/design.md, "Curved elements"): the cofactors
// C_a = J ∇r_a = (x_s × x_t, x_t × x_r, x_r × x_s), exact polynomials of degree 2(q−1) computed
// from the map's exact derivatives, J, and n·sJ = Σ_a n̂_a C_a on the faces. The volume rule is
// exact for degree max(2N, 2N + 2q − 3) and the face rule for 2N + 2q − 2, so ∫ E·∇×H − H·∇×E over an
// element equals −∮ n·(E × H) to rounding (the metric identity Σ_a ∂_a C_a = 0 holds exactly for
// these cofactors) and the central flux conserves, the upwind flux dissipates, the energy in the
// weight-adjusted norm u^T M M_{1/J}^{-1} M u (Chan, Hewett & Warburton, SIAM J. Sci. Comput.
// 2017): the right-hand side is P_N((1/J) P_N(...)) of the element's integrals, P_N the L2
// projection onto degree N. Faces lay their rule out from the face's vertices in increasing
// global id, so both sides of a face evaluate the flux at the same points.
#pragma once

#include <array>
#include <vector>

#include "solver/element/reference_element.hpp"
#include "solver/element/simplex_quadrature.hpp"
#include "solver/mesh/mesh.hpp"

namespace dgmax {

// The reference parts of the quadrature form, shared by all curved elements of one N and q.
struct CurvedQuadrature {
  int Nq = 0, Nfq = 0;
  Eigen::VectorXd w;               // [Nq] volume weights
  Eigen::MatrixXd Vq;              // [Nq][Np] the nodal basis at the volume points
  Eigen::MatrixXd Gr, Gs, Gt;      // [Nq][Np] its derivatives there
  Eigen::MatrixXd Pq;              // [Np][Nq] M^{-1} Vq^T diag(w): L2 projection of point values
  Eigen::MatrixXd Minv;            // [Np][Np] M^{-1} = V V^T (the face integrals to coefficients)
  Eigen::VectorXd wf;              // [Nfq] face weights (reference triangle, area 2)
  // [Nfq][Nfp] face f's nodes to the face points laid out for vertex ranking p (face_ranking)
  Eigen::MatrixXd If[4][6];
  SimplexRule face_rule;           // the canonical layout: (r, s) ↔ barycentric weights of the face's
                                   // vertices of rank 1 and 2 (rank 0: the smallest global id)
};

struct CurvedFactors {
  int Np = 0, Nfp = 0;
  CurvedQuadrature quad;
  std::vector<double> Cq;      // [Kc][9][Nq] cofactor rows C_a (a = r, s, t; 3 components each)
  std::vector<double> Jq;      // [Kc][Nq] J at the volume points
  std::vector<int> ranking;    // [Kc][4] face f's vertex ranking p (0..5)
  std::vector<double> nsJq;    // [Kc][4][Nfq][3] n·sJ at the face points
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

// The points of the curved group's volume and face rules at order N and geometry order q: {Nq, Nfq}.
std::array<int, 2> curved_rule_points(int N, int q);

// Ranking index 0..5 of a face's three vertices by global id: rank[m] is the place of face vertex
// m (kFaceVertices order) in increasing global id.
int face_ranking(const std::array<int, 3>& global_ids);

// The lattice's Lagrange basis at the reference nodes: [Np][lattice_size(q)].
Eigen::MatrixXd curved_interpolation(const Mesh& mesh, const RefElement& ref);
// Node positions of curved element k, L = curved_interpolation(...): X: [Np][3].
Eigen::Matrix<double, Eigen::Dynamic, 3> curved_node_positions(const Mesh& mesh, int k, const Eigen::MatrixXd& L);

// The factors of every curved element of `mesh` (none: empty). Throws UserError naming the element
// and the node where J <= 0 (the map interpolated at the N nodes can fold where q > N).
CurvedFactors compute_curved_factors(const Mesh& mesh, const RefElement& ref);

}  // namespace dgmax
