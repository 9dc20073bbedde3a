// The `pml:` block of a config:
//   pml: {regions: [pml], order: 3, reflection: 1e-6, kappa: 1, alpha: 0.05}   # or
//   pml: {thickness: 0.3, ...}            # the outer 0.3 of the mesh's bounding box
//   pml: {sigma_max: 40, ...}             # instead of the reflection target
// With mesh.box.pml the block may be left out (or give no regions/thickness): the layer is the
// box's `pml` tag.
#pragma once

#include <optional>

#include "solver/io/mesh_spec.hpp"
#include "solver/io/yaml_doc.hpp"
#include "solver/physics/pml.hpp"

namespace dgmax {

std::optional<PmlSpec> parse_pml_config(const YamlDoc& doc, const YAML::Node& node, const MeshSpec& mesh);

}  // namespace dgmax
