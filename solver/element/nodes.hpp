// Warp & blend interpolation nodes on the reference triangle and tetrahedron (Warburton 2006;
// Hesthaven & Warburton 2008, sec. 6.1 and 10.1: Nodes2D / Nodes3D).
//
// Reference triangle: vertices (-1,-1), (1,-1), (-1,1).
// Reference tetrahedron: vertices (-1,-1,-1), (1,-1,-1), (-1,1,-1), (-1,-1,1).
// Node order is HW's (inherited from the equidistant lattice the nodes are warped from):
// r fastest, then s, then t (outermost). Vertices are therefore nodes 0, N, Np2-1 (triangle) and
// 0, N, Nfp-1, Np-1 (tetrahedron).
#pragma once

#include <Eigen/Dense>

namespace dgmax {

// Number of nodes of a degree-N Lagrange basis.
constexpr int num_nodes_2d(int N) { return (N + 1) * (N + 2) / 2; }
constexpr int num_nodes_3d(int N) { return (N + 1) * (N + 2) * (N + 3) / 6; }

// Blend parameter minimizing the Lebesgue constant (HW Nodes2D / Nodes3D tables, N = 1..15);
// beyond 15 HW's fallbacks 5/3 (triangle) and 1 (tetrahedron).
double warp_blend_alpha_2d(int N);
double warp_blend_alpha_3d(int N);

// Equidistant lattices in the same order as the warped nodes. [Np2][2] resp. [Np][3].
Eigen::MatrixXd equidistant_nodes_2d(int N);
Eigen::MatrixXd equidistant_nodes_3d(int N);

// Warp & blend nodes on the reference triangle, (r, s) per row: [Np2][2].
Eigen::MatrixXd warp_blend_nodes_2d(int N);                // alpha = warp_blend_alpha_2d(N)
Eigen::MatrixXd warp_blend_nodes_2d(int N, double alpha);

// Warp & blend nodes on the reference tetrahedron, (r, s, t) per row: [Np][3].
// The nodes on each face are exactly the 2D warp & blend nodes built with the SAME alpha
// (warp_blend_nodes_2d(N, warp_blend_alpha_3d(N))), not with the triangle's optimal alpha: the
// face warp of Nodes3D is the 2D construction evaluated with the tet's alpha.
Eigen::MatrixXd warp_blend_nodes_3d(int N);                // alpha = warp_blend_alpha_3d(N)
Eigen::MatrixXd warp_blend_nodes_3d(int N, double alpha);

}  // namespace dgmax
