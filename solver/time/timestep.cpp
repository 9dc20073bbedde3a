#include "solver/time/timestep.hpp"

#include "solver/parallel/comm.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <string>

#include "solver/util/error.hpp"
#include "solver/util/strings.hpp"

namespace dgmax {

namespace {
// A curved element's Fscale per face for the step: the largest sJ / J over the face's nodes (its
// smallest length scale, as an affine element's 1 / Fscale is).
std::array<double, 4> curved_fscale(const Problem& p, int k) {
  const CurvedFactors& cf = *p.curved;
  const int c = cf.slot_of[k];
  std::array<double, 4> fs{};
  for (int f = 0; f < 4; ++f)
    for (int j = 0; j < p.Nfp(); ++j)
      fs[f] = std::max(fs[f], cf.face_sJ(c, f, j) / cf.jacobian(c, p.ref->Fmask(j, f)));
  return fs;
}
}  // namespace

double stable_dt(const Problem& p, double cfl) {
  const double wave = 12.0 / ((p.N + 2.5) * (p.N + 2.5));
  double m = std::numeric_limits<double>::infinity();
  for (int k = 0; k < p.K(); ++k) {
    auto fs = p.md->geom.Fscale[k];
    if (p.is_curved(k)) fs = curved_fscale(p, k);
    const auto& mat = p.material[k];
    const double r = 2.0 / (fs[0] + fs[1] + fs[2] + fs[3]);
    const double c = 1.0 / std::sqrt(mat.eps * mat.mu);
    const double dt_wave = wave * r / c;
    const double loss_rate = mat.sigma / mat.eps;  // 1/s: the decay rate of E in element k
    m = std::min(m, 1.0 / (1.0 / dt_wave + loss_rate / 4.0));
  }
  return world().min(cfl * m);  // several ranks: the smallest over all elements of all ranks (exact)
}

StepPlan plan_steps(double t_final, double dt_max) {
  if (!(dt_max > 0) || !std::isfinite(dt_max))
    throw UserError("the time step is " + fmt_g(dt_max) + ": it must be finite and positive",
                    {}, "check time.cfl, the materials (eps, mu, sigma) and the mesh for degenerate elements");
  if (std::isnan(t_final) || std::isinf(t_final))
    throw UserError("time.final is " + fmt_g(t_final) + ": it must be a finite number", {},
                    "give time.final as the simulated end time, e.g. time: {final: 2}");
  if (t_final <= 0) return {0, dt_max, 0.0};
  // the ratio is compared in floating point before any conversion: a cast of a ratio beyond
  // long long's range is undefined (it gave one step across the whole interval)
  const double ratio = t_final / dt_max;
  if (!(ratio <= static_cast<double>(kMaxSteps)))
    throw UserError("time.final = " + fmt_g(t_final) + " with a stable step of " + fmt_g(dt_max) + " needs " +
                        fmt_g(std::ceil(ratio)) + " steps, more than the limit of " +
                        std::to_string(kMaxSteps),
                    {}, "shorten time.final, or coarsen the mesh / lower the order (the step scales with "
                        "the smallest element and 1/(N+2.5)^2)");
  // a last step shorter than 1e-9 dt is merged into the previous one (round-off, not physics)
  const long long steps = std::max(1LL, static_cast<long long>(std::ceil(ratio - 1e-9)));
  const double dt_last = t_final - static_cast<double>(steps - 1) * dt_max;
  return {steps, dt_max, dt_last};
}

}  // namespace dgmax
