// The directions a closed-surface monitor's far field is written at (far_field_<name>.csv): the
// config's `far_field:` grid (monitor_config.hpp), every theta of a list times every phi of a
// list, or, when the monitor has none, the two principal cuts phi = 0 and 90 degrees every 5
// degrees in theta (what dgmax wrote before the grid could be chosen).
#pragma once

#include <vector>

#include "solver/physics/near_to_far.hpp"

namespace dgmax {

// More directions than this are refused at the config key: each costs a sum over every surface
// point per frequency, and 1e6 of them is already a 1 GB CSV.
inline constexpr double kMaxFarFieldDirections = 1e6;

struct FarFieldGrid {
  std::vector<double> theta_deg;  // [T] in [0, 180]; empty: the default cuts
  std::vector<double> phi_deg;    // [P] in [-360, 360]

  bool is_default() const { return theta_deg.empty(); }
};

// The grid's directions, phi-major: for each phi every theta (the order of principal_cuts).
// -> [P*T]; the default grid: principal_cuts(5). Each direction carries the configured degrees,
// which the CSV shows as they were written (45, not 45.00000000000001).
std::vector<FarFieldDirection> far_field_directions(const FarFieldGrid& grid);

// The full-sphere grid of `far_field: {sphere: step}`: theta = 0, step, ..., 180 and
// phi = 0, step, ..., 360 - step. `step` must divide 180 (checked by the config parser).
FarFieldGrid sphere_grid(double step_deg);

}  // namespace dgmax
