// Uniform refinement: every tetrahedron into 8 (4 corner tets + the inner octahedron cut along its
// shortest diagonal), tagged boundary triangles into 4, tags and periodic pairs kept.
#pragma once

#include "solver/mesh/mesh.hpp"

namespace dgmax {

Mesh refine_uniform(const Mesh& mesh);

}  // namespace dgmax
