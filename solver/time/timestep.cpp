#include "solver/time/timestep.hpp"

#include <cmath>
#include <limits>

namespace dgmax {

double stable_dt(const Problem& p, double cfl) {
  double m = std::numeric_limits<double>::infinity();
  for (int k = 0; k < p.K(); ++k) {
    const auto& fs = p.md->geom.Fscale[k];
    const double r = 2.0 / (fs[0] + fs[1] + fs[2] + fs[3]);
    const double c = 1.0 / std::sqrt(p.material[k].eps * p.material[k].mu);
    m = std::min(m, r / c);
  }
  return cfl * m * 12.0 / ((p.N + 2.5) * (p.N + 2.5));
}

StepPlan plan_steps(double t_final, double dt_max) {
  if (t_final <= 0) return {0, dt_max, 0.0};
  // a last step shorter than 1e-9 dt is merged into the previous one (round-off, not physics)
  const long long steps = std::max(1LL, static_cast<long long>(std::ceil(t_final / dt_max - 1e-9)));
  const double dt_last = t_final - static_cast<double>(steps - 1) * dt_max;
  return {steps, dt_max, dt_last};
}

}  // namespace dgmax
