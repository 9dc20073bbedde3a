// The TM110 cavity mode (cavity.hpp) stepped by a backend: the L2 error at T = 0.25 (cfl 0.25).
#pragma once

#include <cmath>

#include "cavity.hpp"
#include "solver/backends/backend.hpp"
#include "solver/physics/norms.hpp"
#include "solver/time/timestep.hpp"

namespace dgmax::test {

// ||(E, H) - exact||_L2 at T = 0.25 after stepping the cavity mode on `p` with `be`.
inline double cavity_error(const Problem& p, Backend& be) {
  Fields q;
  interpolate(p, cavity_mode(), 0, q);
  be.set_state(q);
  const double T = 0.25;
  const StepPlan plan = plan_steps(T, stable_dt(p, 0.25));
  double t = 0;
  for (long long s = 0; s < plan.steps; ++s) {
    const double dt = s + 1 == plan.steps ? plan.dt_last : plan.dt;
    be.step(t, dt);
    t += dt;
  }
  be.get_state(q);
  const ErrorNorms e = error_norms(p, q, cavity_mode(), T);
  return std::hypot(e.L2_E, e.L2_H);
}

}  // namespace dgmax::test
