#include "solver/mesh/mesh_setup.hpp"

#include <string>

#include "solver/mesh/refine.hpp"
#include "solver/mesh/validate.hpp"

namespace dgmax {

MeshData setup_mesh(Mesh mesh, int refine) {
  if (refine < 0 || refine > 6)
    throw UserError("mesh.refine must be between 0 and 6 (each level multiplies the element count "
                    "by 8), got " + std::to_string(refine));
  check_basic(mesh);
  MeshData out;
  out.reoriented = orient_elements(mesh);
  for (int i = 0; i < refine; ++i) mesh = refine_uniform(mesh);
  out.conn = build_connectivity(mesh);
  check_conforming(mesh, out.conn);
  out.geom = compute_geometry(mesh);
  out.mesh = std::move(mesh);
  return out;
}

}  // namespace dgmax
