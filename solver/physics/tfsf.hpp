// Total-field/scattered-field plane-wave injection: inside a closed box of mesh faces the state is
// the total field, outside it the scattered field (total minus the incident field). On the box's
// faces each side sees the other side's state converted to its own kind: the exterior trace of a
// total-field element gets + the incident field, that of a scattered-field element gets - it. So
// the incident field (Problem::incident, compiled into the kernels) enters through the box and
// nothing of it exists outside.
#pragma once

#include <cstdint>
#include <vector>

#include "solver/mesh/mesh.hpp"
#include "solver/mesh/mesh_setup.hpp"
#include "solver/physics/problem.hpp"
#include "solver/util/error.hpp"

namespace dgmax {

struct TfsfSpec {
  Vec3 lower{}, upper{};  // the box (faces on mesh faces, inside the mesh)
  SourceLocation where;   // the config's `tfsf:` block
};

struct TfsfSurface {
  std::vector<int> elements;            // [n] elements with a face on the box, ascending (a rank's part: its owned ones)
  std::vector<std::int8_t> sign;        // [n][4]: +1 total-field side, -1 scattered side, 0 other faces
  std::vector<int> index_of;            // [K] position in `elements`, -1 elsewhere (and on ghosts)
  int faces = 0;                        // box faces of the whole mesh (each counted once)
};

// The surface of spec's box on the mesh `md` (the whole mesh of a partitioned run: the checks need
// every face); `pml`: the layer on that mesh, or null. UserError at spec.where when the box is not
// made of mesh faces, is not strictly inside the mesh (every box face needs an element on each
// side), touches the PML, crosses a curved face (naming it: box_surface_faces), or when the
// problem has no incident field (`has_incident` false). A curved element beside an affine box face
// is taken: its quadrature form adds the incident field at the face's points as the straight-sided
// form does at its nodes (ref_curved.cpp).
TfsfSurface build_tfsf_surface(const TfsfSpec& spec, const MeshData& md, const PmlLayer* pml, bool has_incident);

// A rank's part of the surface `whole` (built on the whole mesh that `local` was cut from): the
// elements `local` owns with a box face and their signs, in ascending local order. A box face on a
// rank boundary keeps its sign on each side: the owner of each side corrects its own exterior
// trace (read from the ghost). One rank: a copy of `whole`.
TfsfSurface localize_tfsf_surface(const TfsfSurface& whole, const MeshData& local);

}  // namespace dgmax
