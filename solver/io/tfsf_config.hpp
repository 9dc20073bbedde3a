// The `tfsf:` block of a config: a total-field/scattered-field box whose incident field is the
// config's `incident:` section.
//   tfsf: {box: {lower: [-0.3, -0.3, -0.3], upper: [0.3, 0.3, 0.3]}}   # faces on mesh faces
#pragma once

#include <optional>

#include "solver/io/yaml_doc.hpp"
#include "solver/physics/tfsf.hpp"

namespace dgmax {

std::optional<TfsfSpec> parse_tfsf_config(const YamlDoc& doc, const YAML::Node& node);

}  // namespace dgmax
