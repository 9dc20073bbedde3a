// The `far_field:` key of a closed-surface monitor (monitor_config.hpp): the directions of its
// far_field_<name>.csv.
//
//   far_field:
//     theta: {from: 0, to: 180, step: 2}   # degrees, [0, 180]: a list [0, 45, 90] or a range
//     phi: [0, 45, 90]                     # degrees, [-360, 360]: a list or a range
//   far_field: {sphere: 5}                 # the full sphere: theta 0..180, phi 0..355 every 5 degrees
//
// A range {from, to, step} is from, from + step, ..., to: step > 0 must divide to - from. theta
// alone takes phi = [0, 90]; phi alone takes theta = {from: 0, to: 180, step: 5}. Absent: the two
// cuts phi = 0 and 90 degrees every 5 degrees (far_field_grid.hpp). At most kMaxFarFieldDirections
// directions.
#pragma once

#include <string>

#include "solver/io/yaml_doc.hpp"
#include "solver/physics/far_field_grid.hpp"

namespace dgmax {

// `node` is the far_field value, `what` its key path ("monitors[0].far_field"). UserError, located
// at the offending key, for anything but the forms above.
FarFieldGrid parse_far_field(const YamlDoc& doc, const YAML::Node& node, const std::string& what);

}  // namespace dgmax
