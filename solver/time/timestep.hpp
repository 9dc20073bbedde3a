// The time step from the CFL number.
#pragma once

#include "solver/physics/problem.hpp"

namespace dgmax {

// dt = cfl · min_K (r_K / c_K) · 12 / (N + 2.5)²
//   r_K = 2 / Σ_f Fscale_{K,f}  — the inscribed-sphere radius of element K (3·volume / surface)
//   c_K = 1 / sqrt(eps_K mu_K)  — the wave speed in element K
// The largest stable step of LSERK4 with the upwind flux, measured on 2³-cell box meshes with
// random initial data over 400 steps, follows 12/(N + 2.5)² for N = 1..4 (stable up to cfl =
// 1.0/1.05/1.1/1.1); tests/unit/time/timestep_test.cpp checks cfl = 0.9 stable for N = 1..5 and
// cfl = 1.6 unstable for N = 1, 2. The default cfl = 0.5 leaves a factor 2.
double stable_dt(const Problem& p, double cfl);

// Steps of dt_max, the last one shortened to land exactly on t_final.
struct StepPlan {
  long long steps;
  double dt;       // all steps but the last
  double dt_last;  // in (0, dt]
};
StepPlan plan_steps(double t_final, double dt_max);

}  // namespace dgmax
