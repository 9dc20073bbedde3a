// From a raw mesh to a checked one with connectivity and geometric factors.
#pragma once

#include "solver/mesh/connectivity.hpp"
#include "solver/mesh/curved_mesh.hpp"
#include "solver/mesh/element_order.hpp"
#include "solver/mesh/geometry.hpp"
#include "solver/mesh/halo.hpp"
#include "solver/mesh/mesh.hpp"

namespace dgmax {

struct MeshData {
  Mesh mesh;
  Connectivity conn;
  Geometry geom;
  int reoriented = 0;  // inverted input elements that were flipped
  CurvedJacobianStats curved;  // the curved elements' Jacobians (curved_mesh.hpp)
  Halo halo;           // a partitioned run's ghosts and exchange lists (halo.hpp); empty with one rank

  // Elements this rank computes: all of them with one rank, the owned ones (ghosts follow) with several.
  int owned_elements() const { return halo.K_owned < 0 ? mesh.num_elements() : halo.K_owned; }
  // false for a whole mesh set up with GeometryFactors::Checked (a partitioned run's)
  bool has_geometry() const { return geom.J.size() == mesh.elements.size(); }
};

// Stored: the geometric factors of every element (≈ 240 B each). Checked: only their check (every
// Jacobian positive), for the whole mesh of a partitioned run: each rank computes its own part's
// factors after the partition (local_mesh.hpp), so no rank holds the whole mesh's.
enum class GeometryFactors { Stored, Checked };

// check_basic → orient_elements → `refine` uniform refinements → connectivity (periodic gluing)
// → conformity check → the elements renumbered (`order`, element_order.hpp; after the checks, so
// their messages name elements as the input numbers them) → geometric factors. Throws UserError
// on any defect.
MeshData setup_mesh(Mesh mesh, int refine = 0, GeometryFactors geometry = GeometryFactors::Stored,
                    ElementOrder order = ElementOrder::Input);

// Element k's factors: the stored ones, or computed from its vertices when none are stored (the
// same arithmetic: bitwise the same numbers).
ElementGeometry element_geometry(const MeshData& md, int k);

}  // namespace dgmax
