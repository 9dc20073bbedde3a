#include "solver/io/whole_mesh_setup.hpp"

#include <string>
#include <utility>

#include "solver/mesh/validate.hpp"
#include "solver/util/error.hpp"

namespace dgmax {

std::vector<double> WholeMeshSetup::partition_weights() const {
  return pml_partition_weights(pml.get(), md->mesh.num_elements());
}

std::vector<Material> element_materials(const RunConfig& cfg, const Mesh& mesh) {
  const Material fallback = cfg.materials.at("default").value;
  std::vector<Material> out(static_cast<size_t>(mesh.num_elements()), fallback);
  for (int k = 0; k < mesh.num_elements(); ++k) {
    const auto it = cfg.materials.find(mesh.volume_tag_names[mesh.element_tag[k]]);
    if (it != cfg.materials.end()) out[static_cast<size_t>(k)] = it->second.value;
  }
  return out;
}

// The time stepping computes with each element's affine map until the curved elements' own
// geometric factors are in: a run on curved elements would treat them as straight-sided, silently.
static void require_straight_sided(const RunConfig& cfg, const Mesh& mesh) {
  if (mesh.num_curved() == 0) return;
  throw UserError("the mesh '" + mesh.source + "' has " + std::to_string(mesh.num_curved()) + " curved elements (of " +
                      std::to_string(mesh.num_elements()) + ", geometry order " + std::to_string(mesh.geometry_order) +
                      "), which `dgmax run` cannot use yet: it computes with straight-sided elements only",
                  {cfg.path},
                  "run on a first-order mesh (mesh.geometry_order: 1 with a .geo, or a .msh meshed with "
                  "`Mesh.ElementOrder = 1`); `dgmax info` reports the curved elements");
}

WholeMeshSetup whole_mesh_setup(const RunConfig& cfg, std::shared_ptr<const MeshData> whole) {
  WholeMeshSetup s;
  s.md = std::move(whole);
  check_tags_exist(s.md->mesh, cfg.tag_refs);
  require_straight_sided(cfg, s.md->mesh);
  if (cfg.pml)
    s.pml = std::make_shared<const PmlLayer>(build_pml_layer(*cfg.pml, *s.md, element_materials(cfg, s.md->mesh)));
  return s;
}

}  // namespace dgmax
