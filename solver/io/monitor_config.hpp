// The `probes:` and `monitors:` sections of a config (run_config.hpp lists the whole schema):
//
// probes:
//   every: 0.01                          # sample interval in time (0 or absent: every step)
//   points:
//     - {name: center, at: [0, 0, 0]}    # names: letters, digits, '_'; unique
// monitors:                              # running DFTs (solver/physics/dft_monitor.hpp)
//   - name: box_dft
//     surface: {box: {lower: [-0.5, -0.5, -0.5], upper: [0.5, 0.5, 0.5]}}  # faces of mesh faces
//     frequencies: [0.5, 1.0, 1.5]       # cycles per unit time, ≥ 0
//     far_field: {sphere: 5}             # directions of far_field_box_dft.csv (far_field_config.hpp)
//   - name: vol
//     volume: sphere                     # a volume tag: all nodes of its elements
//     frequencies: [1.0]
//
// Everything that can be checked without the mesh is checked here, located; the rest (a point
// outside the mesh, a box not made of mesh faces) when the run sets them up, at these locations.
#pragma once

#include <string>
#include <vector>

#include "solver/io/yaml_doc.hpp"
#include "solver/mesh/validate.hpp"
#include "solver/physics/dft_monitor.hpp"
#include "solver/physics/probes.hpp"

namespace dgmax {

// The longest probe or monitor name: a closed-surface monitor's far field is written to
// far_field_<name>.csv, and a file name has at most NAME_MAX = 255 bytes (names are ASCII).
inline constexpr size_t kMaxOutputNameLength = 255 - (sizeof("far_field_") - 1) - (sizeof(".csv") - 1);  // 241

// A closed-surface monitor's radiated power is a Gauss quadrature over the far-field sphere with
// n = ceil(2 pi f R) + 10 polar angles and 2n azimuths (near_to_far.hpp, R: the farthest point of
// the box from the origin). Its 2 n^2 directions are held to the far-field grid's limit
// (kMaxFarFieldDirections): more is hours of work, and f = 1e300 would overflow n.
double far_field_power_directions(double frequency, double radius);

// `node` is the `probes:` value.
ProbesSpec parse_probes(const YamlDoc& doc, const YAML::Node& node);

// `node` is the `monitors:` value; volume tags are appended to `tag_refs` (checked against the
// mesh by check_tags_exist).
std::vector<MonitorSpec> parse_monitors(const YamlDoc& doc, const YAML::Node& node, std::vector<TagReference>& tag_refs);

// Once the run's time step is known: UserError at a frequency's line when it lies above the
// Nyquist frequency 1 / (2 dt) of the DFT's samples, one per step. There a running DFT measures an
// alias (f and f - 1/dt have the same samples), not the field at f.
void check_monitor_frequencies(const std::vector<MonitorSpec>& monitors, double dt);

}  // namespace dgmax
