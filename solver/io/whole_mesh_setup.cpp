#include "solver/io/whole_mesh_setup.hpp"

#include <utility>

#include "solver/mesh/validate.hpp"

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

WholeMeshSetup whole_mesh_setup(const RunConfig& cfg, std::shared_ptr<const MeshData> whole) {
  WholeMeshSetup s;
  s.md = std::move(whole);
  check_tags_exist(s.md->mesh, cfg.tag_refs);
  if (cfg.pml)
    s.pml = std::make_shared<const PmlLayer>(build_pml_layer(*cfg.pml, *s.md, element_materials(cfg, s.md->mesh)));
  return s;
}

}  // namespace dgmax
