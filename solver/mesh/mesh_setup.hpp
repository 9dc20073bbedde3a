// From a raw mesh to a checked one with connectivity and geometric factors.
#pragma once

#include "solver/mesh/connectivity.hpp"
#include "solver/mesh/geometry.hpp"
#include "solver/mesh/halo.hpp"
#include "solver/mesh/mesh.hpp"

namespace dgmax {

struct MeshData {
  Mesh mesh;
  Connectivity conn;
  Geometry geom;
  int reoriented = 0;  // inverted input elements that were flipped
  Halo halo;           // a partitioned run's ghosts and exchange lists (halo.hpp); empty with one rank

  // Elements this rank computes: all of them with one rank, the owned ones (ghosts follow) with several.
  int owned_elements() const { return halo.K_owned < 0 ? mesh.num_elements() : halo.K_owned; }
};

// check_basic → orient_elements → `refine` uniform refinements → connectivity (periodic gluing)
// → conformity check → geometric factors. Throws UserError on any defect.
MeshData setup_mesh(Mesh mesh, int refine = 0);

}  // namespace dgmax
