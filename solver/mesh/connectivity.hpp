// Element-to-element/face connectivity, boundary face tags, periodic gluing.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "solver/mesh/mesh.hpp"

namespace dgmax {

struct Connectivity {
  std::vector<std::array<int, 4>> EToE;      // [K][4] neighbour element; -1 on a boundary face
  std::vector<std::array<int, 4>> EToF;      // [K][4] neighbour's local face; -1 on a boundary face
  // [K][4] tag (Mesh::boundary_tag_names) of faces on the outer surface, periodic ones included;
  // -1 for faces between two elements of the mesh
  std::vector<std::array<int, 4>> face_tag;
  std::vector<std::array<int8_t, 4>> face_periodic;  // [K][4] index into Mesh::periodic; -1 if not glued
  int interior_faces = 0;  // each counted once
  int boundary_faces = 0;
  int periodic_faces = 0;  // glued face pairs, each counted once

  bool is_boundary(int k, int f) const { return EToE[k][f] < 0; }
};

// Matches faces by their vertex ids, then glues periodic tag pairs geometrically (tolerance
// relative to the local h). Boundary faces that carry no tag get kUntaggedTag (added to the mesh's
// tag names). Throws UserError for a face shared by more than two elements and for periodic faces
// without a partner.
Connectivity build_connectivity(Mesh& mesh);

// Vertex coordinates of local face f of element k.
std::array<Vec3, 3> face_vertices(const Mesh& mesh, int k, int f);

}  // namespace dgmax
