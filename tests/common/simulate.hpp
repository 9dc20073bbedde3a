// Runs the reference backend on a box mesh for tests: LSERK4 to t_final, returns the final state.
#pragma once

#include <functional>
#include <memory>

#include "solver/backends/ref/ref_backend.hpp"
#include "solver/mesh/box.hpp"
#include "solver/physics/norms.hpp"
#include "solver/time/timestep.hpp"

namespace dgmax::test {

inline Problem box_problem(const BoxSpec& spec, int N, double alpha, int refine = 0) {
  auto md = std::make_shared<const MeshData>(setup_mesh(make_box_mesh(spec), refine));
  Problem p = make_problem(md, N);
  p.set_alpha(alpha);
  return p;
}

inline BoxSpec unit_box(int n) {
  BoxSpec s;
  s.cells = {n, n, n};
  return s;
}

// Steps `be` (its state set) from t = 0 to exactly T with dt = stable_dt(p, cfl), the last step
// shortened to land on T.
inline void step_to(Backend& be, const Problem& p, double T, double cfl) {
  const StepPlan plan = plan_steps(T, stable_dt(p, cfl));
  double t = 0;
  for (long long s = 0; s < plan.steps; ++s) {
    const double dt = s + 1 == plan.steps ? plan.dt_last : plan.dt;
    be.step(t, dt);
    t += dt;
  }
}

struct RunResult {
  Fields q;
  long long steps;
  double dt;
};

// `on_step(step, t, q)` is called after every step when given (it gets the backend's state).
inline RunResult simulate(const Problem& p, const FieldFn& initial, double t_final, double cfl,
                          const std::function<void(long long, double, const Fields&)>& on_step = {}) {
  RefBackend be(p);
  Fields q;
  interpolate(p, initial, 0.0, q);
  be.set_state(q);
  const StepPlan plan = plan_steps(t_final, stable_dt(p, cfl));
  double t = 0;
  for (long long s = 0; s < plan.steps; ++s) {
    const double dt = s + 1 == plan.steps ? plan.dt_last : plan.dt;
    be.step(t, dt);
    t = s + 1 == plan.steps ? t_final : t + dt;
    if (on_step) {
      be.get_state(q);
      on_step(s + 1, t, q);
    }
  }
  be.get_state(q);
  return {q, plan.steps, plan.dt};
}

}  // namespace dgmax::test
