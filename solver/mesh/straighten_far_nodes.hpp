// Gives the high-order nodes of a curved mesh their straight-sided positions away from the curved
// boundary. Gmsh's elastic pass (read_gmsh) moves the nodes of every element of a volume that
// touches a curved surface, a little: left so, every element of that volume is curved for the
// solver, though only the ones at the surface need it. Needs no Gmsh.
#pragma once

#include <cstddef>
#include <vector>

#include "solver/mesh/mesh.hpp"

namespace dgmax {

struct StraightenResult {
  int layers = -1;  // the layers kept around the seeds; -1: none straightened (Gmsh's nodes kept)
  double min_scaled_before = 1, min_scaled_after = 1;  // the smallest scaled Jacobian of the mesh
};

// `mesh` has every element curved (set_curved_points); node_tag[k * Nq + m] names the node at
// lattice point m of element k (shared nodes share a tag: Gmsh's node tags): [K][Nq].
// seed[k] != 0: element k has a node on a curved geometric entity: [K].
//
// The elements within `layers` layers of the seeds (a layer: the elements sharing a face with
// the one before) keep their lattice, but for the nodes they share with an element outside: every
// node of an element outside goes to its straight-sided position, computed from its edge's, face's
// or element's vertices in increasing vertex id, so that every element holding the node gets the
// same bits. The elements outside are then affine and dropped (drop_affine_elements). The fewest
// layers (0, 1, ... max_layers) whose elements' scaled Jacobians all stay at or above the smallest
// one of the mesh as given are taken; with none, the mesh is left as given. Nodes on the curved
// surface (in seed elements only, whose nodes all stay) never move, and the nodes that move stay on
// their planar faces and straight edges: the domain and its interfaces are unchanged.
StraightenResult straighten_far_nodes(Mesh& mesh, const std::vector<std::size_t>& node_tag,
                                      const std::vector<char>& seed, int max_layers = 4);

}  // namespace dgmax
