// How well a total-field/scattered-field box holds its plane wave: a Gaussian pulse crosses an
// empty domain (PML outside); inside the box the field must be the incident one, outside it zero.
// Returned: the largest nodal |field| outside the box and the largest nodal |field - incident|
// inside, over samples every 4 steps, relative to the incident amplitude (1).
#pragma once

#include <cmath>
#include <cstdio>
#include <string>

#include "config_problem.hpp"
#include "solver/backends/backend.hpp"
#include "solver/time/timestep.hpp"

namespace dgmax::test {

struct LeakCase {
  int N = 2;
  double half = 0.75, h = 0.25, box = 0.25;  // domain [-half, half]^3, cell size, TF/SF box [-box, box]^3
  int layer_cells = 1;
  double w = 0.3, s0 = -1.7, T = 2.0;        // incident Ey = Hz = exp(-((x - t - s0)/w)^2)
  std::string precision = "double";
};

struct LeakResult {
  double outside = 0, inside = 0;
  long long K = 0, steps = 0;
};

inline std::string leak_config(const LeakCase& c) {
  auto num = [](double v) { char b[64]; std::snprintf(b, sizeof b, "%.17g", v); return std::string(b); };
  const int cells = static_cast<int>(std::lround(2 * c.half / c.h));
  const std::string n = std::to_string(cells);
  return "mesh:\n  box: {lower: [" + num(-c.half) + ", " + num(-c.half) + ", " + num(-c.half) + "], upper: [" + num(c.half) +
         ", " + num(c.half) + ", " + num(c.half) + "], cells: [" + n + ", " + n + ", " + n + "], pml: " +
         num(c.layer_cells * c.h) + "}\ndiscretization: {order: " + std::to_string(c.N) + ", precision: " + c.precision +
         ", flux: upwind}\nconstants: {s0: " + num(c.s0) + ", w: " + num(c.w) +
         "}\nmaterials: {default: {eps: 1, mu: 1}}\nboundaries: {default: pec}\nincident:\n"
         "  E: [\"0\", \"exp(-((x - t - s0)/w)^2)\", \"0\"]\n  H: [\"0\", \"0\", \"exp(-((x - t - s0)/w)^2)\"]\n"
         "tfsf: {box: {lower: [" + num(-c.box) + ", " + num(-c.box) + ", " + num(-c.box) + "], upper: [" + num(c.box) + ", " +
         num(c.box) + ", " + num(c.box) + "]}}\n";
}

template <class Factory>
LeakResult measure_leak(const LeakCase& c, const Factory& make) {
  const auto cp = config_problem(leak_config(c));
  const Problem& p = cp->p;
  auto be = make(p, c.precision == "single");
  be->init_state();
  const double dt = stable_dt(p, 0.5);
  LeakResult r;
  r.K = p.K();
  r.steps = static_cast<long long>(std::ceil(c.T / dt));
  // inside: all of an element's vertices within the box (closed); outside: the rest
  std::vector<char> inside(static_cast<size_t>(p.K()));
  for (int k = 0; k < p.K(); ++k) {
    bool in = true;
    for (int v : p.md->mesh.elements[k])
      for (int d = 0; d < 3; ++d) in = in && std::abs(p.md->mesh.vertices[v][d]) <= c.box + 1e-9;
    inside[k] = in;
  }
  Fields q;
  for (long long s = 0; s < r.steps; ++s) {
    be->step(s * dt, dt);
    if ((s + 1) % 4 != 0 && s + 1 != r.steps) continue;
    const double t = (s + 1) * dt;
    be->get_state(q);
    for (int k = 0; k < p.K(); ++k)
      for (int i = 0; i < p.Np(); ++i) {
        const size_t node = static_cast<size_t>(k) * p.Np() + i;
        const double inc = std::exp(-std::pow((p.xyz.x[node] - t - c.s0) / c.w, 2));
        for (int comp = 0; comp < 6; ++comp) {
          const double v = q(k, comp, i);
          if (!inside[k]) r.outside = std::max(r.outside, std::abs(v));
          else r.inside = std::max(r.inside, std::abs(v - ((comp == 1 || comp == 5) ? inc : 0.0)));
        }
      }
  }
  return r;
}

}  // namespace dgmax::test
