// Physical node coordinates and face node maps (which node of the neighbour sits across each face
// node) for a given reference element.
#pragma once

#include <vector>

#include "solver/element/reference_element.hpp"
#include "solver/mesh/mesh_setup.hpp"

namespace dgmax {

struct NodeCoords {
  int Np = 0;
  std::vector<double> x, y, z;  // [K][Np]
};

NodeCoords node_coordinates(const Mesh& mesh, const RefElement& ref);

// Index (k*Np + i) maps of face nodes: interior side M and exterior side P.
struct FaceMaps {
  int Nfp = 0;
  std::vector<int> vmapM;  // [K][4][Nfp] node of this element at face node j
  std::vector<int> vmapP;  // [K][4][Nfp] the coinciding node of the neighbour; = vmapM on boundaries
};

// Matches face nodes by position (periodic faces shifted), with a tolerance of 1e-7 times the
// local face size. Throws UserError naming the element and face when a node has no partner.
FaceMaps build_face_maps(const MeshData& md, const RefElement& ref, const NodeCoords& xyz);

}  // namespace dgmax
