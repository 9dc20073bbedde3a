// How much a terminated domain reflects: a short dipole pulse at the centre of the box
// [-a, a]^3, run once with the given termination (a PML of `layer_cells` cells, or first-order
// absorbing walls when layer_cells = 0) and once on a box so large that nothing comes back into
// [-a, a]^3 before T. Both meshes have the same cells, so their elements in [-a, a]^3 are the
// same tetrahedra and the fields there differ only by what the termination sent back. Returned:
// the relative L2 difference of E and H over the inner elements, summed over samples in [0, T].
#pragma once

#include <cmath>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <tuple>

#include "config_problem.hpp"
#include "solver/backends/backend.hpp"
#include "solver/physics/fields.hpp"
#include "solver/time/timestep.hpp"

namespace dgmax::test {

struct ReflectionCase {
  int N = 3;
  int cells = 4;         // cells across the inner box [-a, a]
  double a = 0.5;
  int layer_cells = 2;   // PML thickness in cells; 0: absorbing walls instead
  double T = 1.5;        // end of the comparison window
  double w = 0.15, t0 = 0.4, tau = 0.1;  // source: J_z = -(t - t0)/tau exp(-((t - t0)/tau)^2) exp(-r^2/w^2)
  std::string pml_extra;  // more pml keys, e.g. ", order: 3, reflection: 1e-6"
  std::string precision = "double";
};

struct ReflectionResult {
  double difference = 0;  // relative L2 (space and time) over the inner elements
  double peak_energy = 0, final_energy = 0;  // of the terminated run (whole mesh)
  long long K = 0, K_big = 0, steps = 0;
};

using BackendFactory = std::function<std::unique_ptr<Backend>(const Problem&, bool single)>;

inline std::string reflection_config(const ReflectionCase& c, double half, int cells, bool pml) {
  const double h = 2 * c.a / c.cells;
  auto num = [](double v) { char b[64]; std::snprintf(b, sizeof b, "%.17g", v); return std::string(b); };
  std::string box = "{lower: [" + num(-half) + ", " + num(-half) + ", " + num(-half) + "], upper: [" + num(half) + ", " +
                    num(half) + ", " + num(half) + "], cells: [" + std::to_string(cells) + ", " + std::to_string(cells) +
                    ", " + std::to_string(cells) + "]" + (pml ? ", pml: " + num(c.layer_cells * h) : "") + "}";
  return "mesh:\n  box: " + box + "\ndiscretization: {order: " + std::to_string(c.N) + ", precision: " + c.precision +
         ", flux: upwind}\nconstants: {w: " + num(c.w) + ", t0: " + num(c.t0) + ", tau: " + num(c.tau) +
         "}\nmaterials: {default: {eps: 1, mu: 1}}\nboundaries: {default: " + (pml ? "pec" : "absorbing") +
         "}\nsources:\n  J: [\"0\", \"0\", \"-(t - t0)/tau*exp(-((t - t0)/tau)^2)*exp(-(x^2 + y^2 + z^2)/w^2)\"]\n" +
         (pml ? "pml: {alpha: 0.05" + c.pml_extra + "}\n" : "");
}

// Element centroid, rounded to a lattice far finer than the mesh: the key that matches elements.
inline std::tuple<long, long, long> centroid_key(const Mesh& m, int k) {
  double c[3] = {0, 0, 0};
  for (int v : m.elements[k])
    for (int d = 0; d < 3; ++d) c[d] += m.vertices[v][d] / 4;
  return {std::lround(c[0] * 1e6), std::lround(c[1] * 1e6), std::lround(c[2] * 1e6)};
}

// The unbounded run's fields on the inner elements at every 4th step (and the last), keyed by
// element centroid: one reference serves every termination of the same case.
struct ReflectionReference {
  std::map<std::tuple<long, long, long>, size_t> inner;  // centroid -> index into each sample
  std::vector<std::vector<double>> samples;              // [sample][inner element][6][Np]
  double dt = 0;
  long long steps = 0, K = 0;
};

inline ReflectionReference reflection_reference(const ReflectionCase& c, const BackendFactory& make, double dt) {
  const double h = 2 * c.a / c.cells;
  // nothing that leaves [-a, a]^3 returns from walls at distance L before T: L + (L - a) - 2w > T
  const int half_cells = static_cast<int>(std::ceil((c.T + c.a + 2 * c.w) / 2 / h)) + 1;
  const auto big = config_problem(reflection_config(c, half_cells * h, 2 * half_cells, false));
  const Problem& p = big->p;
  ReflectionReference ref;
  ref.K = p.K();
  std::vector<int> inner;
  for (int k = 0; k < p.K(); ++k) {
    double cmax = 0;
    for (int v : p.md->mesh.elements[k])
      for (int d = 0; d < 3; ++d) cmax = std::max(cmax, std::abs(p.md->mesh.vertices[v][d]));
    if (cmax > c.a + 1e-9) continue;
    ref.inner[centroid_key(p.md->mesh, k)] = inner.size();
    inner.push_back(k);
  }
  auto be = make(p, c.precision == "single");
  be->init_state();
  ref.dt = dt;
  ref.steps = static_cast<long long>(std::ceil(c.T / dt));
  Fields q;
  for (long long s = 0; s < ref.steps; ++s) {
    be->step(s * dt, dt);
    if ((s + 1) % 4 != 0 && s + 1 != ref.steps) continue;
    be->get_state(q);
    std::vector<double> v;
    v.reserve(inner.size() * 6 * p.Np());
    for (int k : inner) v.insert(v.end(), q.comp(k, 0), q.comp(k, 0) + 6 * p.Np());
    ref.samples.push_back(std::move(v));
  }
  return ref;
}

// The time step both runs use: the terminated mesh's (the big one has the same cells).
inline double reflection_dt(const ReflectionCase& c) {
  ReflectionCase one = c;
  one.layer_cells = 0;
  return stable_dt(config_problem(reflection_config(one, c.a, c.cells, false))->p, 0.5);
}

inline ReflectionResult measure_reflection(const ReflectionCase& c, const ReflectionReference& ref,
                                           const BackendFactory& make) {
  const auto term = config_problem(reflection_config(c, c.a, c.cells, c.layer_cells > 0));
  const Problem& pt = term->p;
  std::vector<std::pair<int, size_t>> pairs;  // (terminated element, inner index)
  for (int k = 0; k < pt.K(); ++k)
    if (const auto it = ref.inner.find(centroid_key(pt.md->mesh, k)); it != ref.inner.end()) pairs.push_back({k, it->second});
  if (pairs.size() != ref.inner.size()) throw std::runtime_error("inner elements without a partner");
  auto bt = make(pt, c.precision == "single");
  bt->init_state();
  ReflectionResult r;
  r.K = pt.K();
  r.K_big = ref.K;
  r.steps = ref.steps;
  const int Np = pt.Np();
  double num = 0, den = 0;
  Fields qt;
  size_t sample = 0;
  for (long long s = 0; s < ref.steps; ++s) {
    bt->step(s * ref.dt, ref.dt);
    if ((s + 1) % 4 != 0 && s + 1 != ref.steps) continue;
    bt->get_state(qt);
    const std::vector<double>& qb = ref.samples[sample++];
    for (const auto& [kt, m] : pairs)
      for (int n = 0; n < 6 * Np; ++n) {
        const double b = qb[m * 6 * Np + n], d = qt.comp(kt, 0)[n] - b;
        num += d * d;
        den += b * b;
      }
    const double e = bt->norms((s + 1) * ref.dt).energy;
    r.peak_energy = std::max(r.peak_energy, e);
    r.final_energy = e;
  }
  r.difference = std::sqrt(num / den);
  return r;
}

}  // namespace dgmax::test
