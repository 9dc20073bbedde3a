// A problem that exercises every code path of a backend: a random affine mesh, random
// heterogeneous materials (eps, mu, sigma per element), every boundary condition (by face),
// a current source and an incident field, and a random state.
#pragma once

#include <cmath>
#include <memory>
#include <random>

#include "random_mesh.hpp"
#include "solver/backends/ref/ref_backend.hpp"
#include "solver/physics/norms.hpp"
#include "solver/physics/problem.hpp"
#include "solver/physics/space_time_field.hpp"

namespace dgmax::test {

// Random heterogeneous materials (eps, mu, sigma per element), every boundary condition (by face),
// a current source and an incident field, as expressions: the generated backends compile them, the
// ref backend interprets them.
inline void set_mixed_physics(Problem& p, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(0, 1);
  for (auto& m : p.material) m = Material{1 + 3 * u(rng), 1 + u(rng), 0.5 * u(rng)};
  for (int k = 0; k < p.K(); ++k)
    for (int f = 0; f < 4; ++f) p.bc[k][f] = static_cast<BcKind>((k + f) % 4);
  p.current = space_time_field_from_text({"sin(x + t)", "cos(y*z)", "x*y - t"}, "sources.J");
  std::vector<std::string> inc;
  for (int c = 0; c < 6; ++c)
    inc.push_back("sin(" + std::to_string(c + 1) + "*x - t)*cos(y + " + std::to_string(c) + "*z)");
  p.incident = space_time_field_from_text(inc, "incident");
}

inline Problem mixed_problem(int N, unsigned seed, const std::string& flux = "upwind", double alpha = 1,
                             int cells = 2) {
  auto md = std::make_shared<const MeshData>(setup_mesh(random_affine_mesh(cells, seed).mesh));
  Problem p = make_problem(md, N);
  p.fluxes = make_flux_set(flux, alpha, nullptr, {});
  set_mixed_physics(p, seed);
  return p;
}

inline Fields random_state(const Problem& p, unsigned seed) {
  Fields q(p.K(), p.Np());
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(-1, 1);
  for (auto& v : q.q) v = u(rng);
  return q;
}

// max |a - b| / max |b|
inline double relative_difference(const Fields& a, const Fields& b) {
  double d = 0, m = 0;
  for (size_t i = 0; i < a.q.size(); ++i) {
    d = std::max(d, std::abs(a.q[i] - b.q[i]));
    m = std::max(m, std::abs(b.q[i]));
  }
  return d / m;
}

// max relative difference between a backend's RHS and the ref backend's on a random state.
inline double rhs_difference_to_ref(const Problem& p, Backend& backend, unsigned seed) {
  const Fields q = random_state(p, seed);
  RefBackend ref(p);
  Fields r_ref, r;
  ref.rhs(q, 0.37, r_ref);
  backend.rhs(q, 0.37, r);
  return relative_difference(r, r_ref);
}

}  // namespace dgmax::test
