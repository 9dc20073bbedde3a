// The checks the cpu and cuda backends' curved groups share: on curved_mixed_problem (every
// boundary condition, materials, a current and an incident field on curved elements) the backend's
// right-hand side, steps, initial state and norms agree with the ref backend's quadrature form
// (ref_curved.cpp) to rounding, and a restart from its state and residual continues bit for bit.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <memory>
#include <string>

#include "curved_mixed_problem.hpp"
#include "field_cases.hpp"
#include "mixed_problem.hpp"
#include "same_bits.hpp"
#include "solver/backends/ref/ref_backend.hpp"
#include "solver/physics/norms.hpp"
#include "warped_config_problem.hpp"

namespace dgmax::test {

// How many curved elements of `p` have a boundary face of condition `kind`.
inline int curved_faces_with(const Problem& p, BcKind kind) {
  int n = 0;
  for (int k = 0; k < p.K(); ++k)
    for (int f = 0; f < 4; ++f)
      if (p.is_curved(k) && p.md->conn.is_boundary(k, f) && p.bc[k][f] == kind) ++n;
  return n;
}

struct CurvedTolerances {
  double rhs, steps, state, energy;
};
inline CurvedTolerances curved_tolerances(bool single) {
  // single: rounding to float of values of size ~10-100 over sums of ~100 terms
  return single ? CurvedTolerances{3e-5, 2e-4, 4e-7, 2e-6} : CurvedTolerances{1e-12, 1e-11, 1e-14, 1e-13};
}

inline void expect_curved_backend_matches_ref(const BackendMaker& make, bool single, int N, int q) {
  const std::string what = std::string(single ? "single" : "double") + ", N = " + std::to_string(N) + ", q = " + std::to_string(q);
  const CurvedTolerances tol = curved_tolerances(single);
  Problem p = curved_mixed_problem(N, q, 5);
  ASSERT_GT(p.curved ? p.curved->count() : 0, p.K() / 2) << what;
  ASSERT_GT(curved_faces_with(p, BcKind::Incident), 0) << what;
  ASSERT_GT(curved_faces_with(p, BcKind::Pec), 0) << what;
  auto be = make(p, single);

  // the right-hand side of a random state, and at another time (the current and incident fields)
  for (double t : {0.0, 0.37}) {
    Fields q0 = random_state(p, 7);
    if (single)
      for (double& v : q0.q) v = static_cast<float>(v);
    RefBackend ref(p);
    Fields want, got;
    ref.rhs(q0, t, want);
    be->rhs(q0, t, got);
    EXPECT_LE(relative_difference(got, want), tol.rhs) << what << ", t = " << t;
  }

  // the initial state at the curved nodes, and the norms of a random state
  be->init_state();
  Fields init;
  be->get_state(init);
  const Fields host = interpolate_initial(p);
  double d = 0, m = 0;
  for (size_t n = 0; n < init.q.size(); ++n) {
    d = std::max(d, std::abs(init.q[n] - host.q[n]));
    m = std::max(m, std::abs(host.q[n]));
  }
  EXPECT_LE(d, tol.state * m) << what << ": initial state";
  {
    Fields qs = random_state(p, 3);
    if (single)
      for (double& v : qs.q) v = static_cast<float>(v);
    be->set_state(qs);
    const NormSample s = be->norms(0.7);
    const double W = electromagnetic_energy(p, qs);
    const ErrorNorms e = error_norms(p, qs, p.exact.eval, 0.7);
    EXPECT_NEAR(s.energy, W, tol.energy * W) << what;
    EXPECT_NEAR(s.errors.L2_E, e.L2_E, (single ? 1e-6 : 1e-13) * e.L2_E) << what;
    EXPECT_NEAR(s.errors.L2_H, e.L2_H, (single ? 1e-6 : 1e-13) * e.L2_H) << what;
    EXPECT_NEAR(s.errors.Linf_E, e.Linf_E, 1e-14 * e.Linf_E) << what;
    EXPECT_NEAR(s.errors.Linf_H, e.Linf_H, 1e-14 * e.Linf_H) << what;
    const double J2 = current_norm(p, p.current.eval, 0.7);
    EXPECT_NEAR(s.current, J2, (single ? 1e-6 : 1e-12) * J2) << what;
  }

  // steps from a smooth state, against the ref backend's
  const double dt = 1e-3;
  Fields start = interpolate_initial(p);
  if (single)
    for (double& v : start.q) v = static_cast<float>(v);
  RefBackend ref(p);
  ref.set_state(start);
  be->set_state(start);
  for (int s = 0; s < 4; ++s) {
    ref.step(s * dt, dt);
    be->step(s * dt, dt);
  }
  Fields a, b;
  ref.get_state(a);
  be->get_state(b);
  EXPECT_LE(relative_difference(b, a), tol.steps) << what << ": 4 steps";

  // a restart from the state and the residual continues bit for bit
  Fields res;
  be->get_residual(res);
  auto again = make(p, single);
  again->set_state(b);
  again->set_residual(res);
  for (int s = 4; s < 6; ++s) {
    be->step(s * dt, dt);
    again->step(s * dt, dt);
  }
  Fields x, y;
  be->get_state(x);
  again->get_state(y);
  EXPECT_TRUE(same_bits(x.q, y.q)) << what << ": restart";
}

}  // namespace dgmax::test

namespace dgmax::test {

// A TF/SF box whose +x face is flat with curved elements on both sides (the warp of
// tests/unit/physics/curved_tfsf_test.cpp): the backend's right-hand side while the incident pulse
// crosses that face (t = 1.875) equals the ref backend's, which adds sign * the incident field to
// the curved elements' exterior traces at the face's points. Returns the difference.
inline double tfsf_beside_curved_difference(const BackendMaker& make, bool single) {
  const char* yaml = R"yaml(
mesh: {box: {lower: [-0.625, -0.625, -0.625], upper: [0.625, 0.625, 0.625], cells: [5, 5, 5]}}
discretization: {order: 2, precision: double, flux: upwind}
materials: {default: {eps: 1, mu: 1}}
boundaries: {default: absorbing}
incident:
  E: ["0", "exp(-((x - t + 1.5)/0.4)^2)", "0"]
  H: ["0", "0", "exp(-((x - t + 1.5)/0.4)^2)"]
tfsf: {box: {lower: [-0.375, -0.375, -0.375], upper: [0.375, 0.375, 0.375]}}
)yaml";
  const double face = 0.375;
  const Warp ball = ball_warp({face, 0, 0}, 0.3, 0.1);
  const Warp off_the_plane = [ball, face](const Vec3& x) {
    const Vec3 y = ball(x);
    Vec3 out = x;
    for (int d = 0; d < 3; ++d) out[d] += (y[d] - x[d]) * (x[0] - face) / 0.3;
    return out;
  };
  const auto cp = warped_config_problem(yaml, 2, off_the_plane);
  const Problem& p = cp->p;
  int curved_on_box = 0;
  for (int k = 0; k < p.K(); ++k) curved_on_box += p.is_curved(k) && p.tfsf->index_of[k] >= 0;
  EXPECT_GE(curved_on_box, 8);
  Fields q0 = random_state(p, 11);
  if (single)
    for (double& v : q0.q) v = static_cast<float>(v);
  RefBackend ref(p);
  auto be = make(p, single);
  Fields want, got;
  ref.rhs(q0, 1.875, want);
  be->rhs(q0, 1.875, got);
  return relative_difference(got, want);
}

}  // namespace dgmax::test
