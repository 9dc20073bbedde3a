// The time step from the CFL number.
#pragma once

#include "solver/physics/problem.hpp"

namespace dgmax {

// dt = cfl · min_K (r_K / c_K) · 4 / (N+1)²
//   r_K = 2 / Σ_f Fscale_{K,f}  — the inscribed-sphere radius of element K (3·volume / surface)
//   c_K = 1 / sqrt(eps_K mu_K)  — the wave speed in element K
// The constant 4 makes cfl ≈ 1 close to the LSERK4 stability limit of the upwind scheme for
// N = 1..8 (measured in tests/unit/time); cfl = 0.5 leaves a safety margin.
double stable_dt(const Problem& p, double cfl);

// Steps of dt_max, the last one shortened to land exactly on t_final.
struct StepPlan {
  long long steps;
  double dt;       // all steps but the last
  double dt_last;  // in (0, dt]
};
StepPlan plan_steps(double t_final, double dt_max);

}  // namespace dgmax
