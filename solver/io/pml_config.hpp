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

// The largest kappa * time.cfl that runs stably: kappa scales the layer's right-hand side
// (pml_profile.hpp), which shortens the stable step. Measured, bench/NOTES.md "PML kappa and the
// time step": kappa x cfl = 2 stable, 2.5 blew up (N = 1 and 2).
inline constexpr double kMaxPmlKappaCfl = 2;

// `cfl`: the config's time.cfl (parsed before), which bounds kappa.
std::optional<PmlSpec> parse_pml_config(const YamlDoc& doc, const YAML::Node& node, const MeshSpec& mesh, double cfl);

}  // namespace dgmax
