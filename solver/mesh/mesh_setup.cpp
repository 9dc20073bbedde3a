#include "solver/mesh/mesh_setup.hpp"

#include <cmath>
#include <string>

#include "solver/mesh/curved_mesh.hpp"
#include "solver/mesh/memory_estimate.hpp"
#include "solver/mesh/refine.hpp"
#include "solver/mesh/setup_timer.hpp"
#include "solver/mesh/validate.hpp"

namespace dgmax {

MeshData setup_mesh(Mesh mesh, int refine, GeometryFactors geometry, ElementOrder order) {
  if (refine < 0 || refine > 6)
    throw UserError("mesh.refine must be between 0 and 6 (each level multiplies the element count "
                    "by 8), got " + std::to_string(refine),
                    {}, "for more elements, start from a finer mesh (more mesh.box.cells, or a smaller mesh size)");
  if (refine > 0)  // refuse before refining what no run could hold
    require_host_memory(static_cast<double>(mesh.num_elements()) * std::pow(8.0, refine),
                        kMinRunBytesPerElement,
                        "the mesh refined " + std::to_string(refine) + " times (" +
                            std::to_string(mesh.num_elements()) + " elements × 8^" +
                            std::to_string(refine) + ")",
                        {mesh.source}, "ask for fewer refinements (mesh.refine)");
  SetupTimer timer("mesh");
  check_basic(mesh);
  timer.phase("check_basic");
  MeshData out;
  out.reoriented = orient_elements(mesh);
  timer.phase("orient");
  drop_affine_elements(mesh);
  if (refine > 0 && !mesh.curved_index.empty())
    throw UserError("mesh.refine cannot refine curved elements (" + std::to_string(mesh.num_curved()) + " of " +
                        std::to_string(mesh.num_elements()) + " elements of " + mesh.source + " are curved)",
                    {mesh.source}, "mesh finer in Gmsh instead (a smaller mesh size), or drop mesh.refine");
  for (int i = 0; i < refine; ++i) mesh = refine_uniform(mesh);
  if (refine > 0) timer.phase("refine");
  out.conn = build_connectivity(mesh);
  timer.phase("connectivity");
  check_conforming(mesh, out.conn);
  timer.phase("check_conforming");
  if (order == ElementOrder::Hilbert) {
    renumber_elements(mesh, out.conn, hilbert_element_order(mesh));
    timer.phase("renumber");
  }
  if (geometry == GeometryFactors::Stored)
    out.geom = compute_geometry(mesh);
  else
    check_jacobians(mesh);
  out.curved = check_curved_jacobians(mesh);
  timer.phase("geometry");
  out.mesh = std::move(mesh);
  return out;
}

ElementGeometry element_geometry(const MeshData& md, int k) {
  if (!md.has_geometry()) return element_geometry(md.mesh, k);
  ElementGeometry g;
  g.J = md.geom.J[k];
  g.drdx = md.geom.drdx[k];
  g.normal = md.geom.normal[k];
  g.sJ = md.geom.sJ[k];
  g.Fscale = md.geom.Fscale[k];
  return g;
}

}  // namespace dgmax
