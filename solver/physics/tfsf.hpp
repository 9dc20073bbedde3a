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
#include "solver/physics/problem.hpp"
#include "solver/util/error.hpp"

namespace dgmax {

struct TfsfSpec {
  Vec3 lower{}, upper{};  // the box (faces on mesh faces, inside the mesh)
  SourceLocation where;   // the config's `tfsf:` block
};

struct TfsfSurface {
  std::vector<int> elements;            // [n] elements with a face on the box, ascending
  std::vector<std::int8_t> sign;        // [n][4]: +1 total-field side, -1 scattered side, 0 other faces
  std::vector<int> index_of;            // [K] position in `elements`, -1 elsewhere
  int faces = 0;                        // box faces (each counted once)
};

// The surface of spec's box. UserError at spec.where when the box is not made of mesh faces, is not
// strictly inside the mesh (every box face needs an element on each side), touches the PML, or
// when the problem has no incident field.
TfsfSurface build_tfsf_surface(const TfsfSpec& spec, const Problem& p);

}  // namespace dgmax
