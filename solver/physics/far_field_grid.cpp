#include "solver/physics/far_field_grid.hpp"

#include <cmath>

#include "solver/util/error.hpp"

namespace dgmax {

namespace {

constexpr double kPi = 3.14159265358979323846;
constexpr double kRadPerDeg = kPi / 180;

}  // namespace

std::vector<FarFieldDirection> far_field_directions(const FarFieldGrid& grid) {
  if (grid.is_default()) return principal_cuts(5);
  DGMAX_ASSERT(!grid.phi_deg.empty(), "a far-field grid with theta but no phi");
  DGMAX_ASSERT(static_cast<double>(grid.theta_deg.size()) * static_cast<double>(grid.phi_deg.size()) <=
                   kMaxFarFieldDirections,
               "the config parser bounds the far-field grid");
  std::vector<FarFieldDirection> dirs;
  dirs.reserve(grid.theta_deg.size() * grid.phi_deg.size());
  for (const double phi : grid.phi_deg)
    for (const double theta : grid.theta_deg) dirs.push_back({theta * kRadPerDeg, phi * kRadPerDeg, theta, phi});
  return dirs;
}

FarFieldGrid sphere_grid(double step_deg) {
  const long n = std::lround(180 / step_deg);
  DGMAX_ASSERT(n >= 1, "sphere_grid needs a step that divides 180");
  FarFieldGrid g;
  for (long i = 0; i <= n; ++i) g.theta_deg.push_back(180.0 * static_cast<double>(i) / static_cast<double>(n));
  for (long i = 0; i < 2 * n; ++i) g.phi_deg.push_back(180.0 * static_cast<double>(i) / static_cast<double>(n));
  return g;
}

}  // namespace dgmax
