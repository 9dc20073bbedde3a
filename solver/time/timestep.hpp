// The time step from the CFL number, and the step plan of a run.
#pragma once

#include "solver/physics/problem.hpp"

namespace dgmax {

// The real-axis stability limit of LSERK4: |R(-x)| <= 1 for 0 <= x <= 4.6567 (computed from the
// coefficients; tests/unit/time/timestep_test.cpp checks it). The loss term -sigma/eps E puts
// eigenvalues on the negative real axis.
inline constexpr double kLserkRealLimit = 4.6567;

// dt = cfl · min_K 1 / (1/dt_wave_K + (sigma_K/eps_K) / 4)
//   dt_wave_K = r_K / c_K · 12 / (N + 2.5)²
//   r_K = 2 / Σ_f Fscale_{K,f}  — the inscribed-sphere radius of element K (3·volume / surface)
//   c_K = 1 / sqrt(eps_K mu_K)  — the wave speed in element K
// The largest stable step of LSERK4 with the upwind flux, measured on 2³-cell box meshes with
// random initial data over 400 steps, follows 12/(N + 2.5)² for N = 1..4 (stable up to cfl =
// 1.0/1.05/1.1/1.1); tests/unit/time/timestep_test.cpp checks cfl = 0.9 stable for N = 1..5 and
// cfl = 1.6 unstable for N = 1, 2. The default cfl = 0.5 leaves a factor 2. The loss rate
// sigma/eps adds to the wave eigenvalues (rates add, so the limits combine harmonically); its own
// limit 4 stays below kLserkRealLimit at cfl <= 1.
double stable_dt(const Problem& p, double cfl);

// Steps of dt_max, the last one shortened to land exactly on t_final.
struct StepPlan {
  long long steps;
  double dt;       // all steps but the last
  double dt_last;  // in (0, dt]
};

// The most steps a run may take (1e9: days of computing even on the smallest mesh); beyond it a
// step plan is refused, never truncated.
inline constexpr long long kMaxSteps = 1'000'000'000LL;

// Checked: UserError (naming t_final, dt_max and the step count needed) when t_final or dt_max is
// not finite or not positive, or when more than kMaxSteps steps are needed (dt_max >= 1e-9
// t_final then also keeps t + dt clear of round-off).
StepPlan plan_steps(double t_final, double dt_max);

}  // namespace dgmax
