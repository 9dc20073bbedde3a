// Where the nodes of Gmsh's complete Lagrange tetrahedra sit, in Gmsh's node order, and which of
// them is each point of dgmax's lattice (curved_lattice.hpp). Needs no Gmsh: the order is rebuilt
// the way Gmsh builds it (tests/unit/mesh/gmsh_node_order_test.cpp compares it with Gmsh's
// getElementProperties for every order).
#pragma once

#include <array>
#include <vector>

namespace dgmax {

// The reference coordinates (u, v, w) of the nodes of Gmsh's complete tetrahedron of order
// q = 1..10 on its reference tetrahedron (0,0,0), (1,0,0), (0,1,0), (0,0,1), in Gmsh's node order:
// the 4 vertices; the q-1 nodes of each edge 0-1, 1-2, 2-0, 3-0, 3-2, 3-1 from its first vertex
// to its second; the nodes inside each face (0,2,1), (0,1,3), (0,3,2), (3,1,2) as a triangle of
// order q-3 in that face's vertex order (recursively: vertices, edges, interior); then the
// interior as a tetrahedron of order q-4 (recursively). [Nq] with Nq = lattice_size(q).
std::vector<std::array<double, 3>> gmsh_tet_node_coordinates(int q);

// For each point m of dgmax's order-q lattice, the Gmsh node at the same place: lattice point
// (i, j, l) is the node with q·(u, v, w) = (i, j, l) (u = λ1, v = λ2, w = λ3). [Nq]
std::vector<int> gmsh_tet_lattice_nodes(int q);

}  // namespace dgmax
