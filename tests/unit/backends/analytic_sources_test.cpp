// Independent truths for the conductivity and current terms of every host backend (ref, cpu in
// double and single precision), which backend agreement alone cannot give: on a periodic box a
// uniform field has no curl and no jumps, so
//   eps dE/dt = -sigma E - J(t),  mu dH/dt = 0
// is an ODE per node with exact solutions: E(t) = E0 exp(-sigma t / eps) without J, and
// E(t) = E0 - J0 sin(t) / eps for J = J0 cos(t) without sigma. eps, mu != 1 so a missing or
// misplaced 1/eps shows.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <memory>

#include "simulate.hpp"
#include "solver/backends/cpu/cpu_backend.hpp"
#include "solver/physics/space_time_field.hpp"

using namespace dgmax;

namespace {

constexpr double kE0[3] = {1.0, -2.0, 0.5}, kH0[3] = {0.3, 0.0, -1.0};

Problem uniform_problem(double eps, double mu, double sigma) {
  BoxSpec s;
  s.cells = {2, 2, 2};
  s.periodic = {true, true, true};
  Problem p = test::box_problem(s, 2, 1.0);
  for (auto& m : p.material) m = Material{eps, mu, sigma};
  return p;
}

// Steps the uniform initial field (E0, H0) to T with `be`; the largest |q - exact(T)| over all
// nodes relative to |E0|max = 2.
double max_error(const Problem& p, Backend& be, double T, const std::function<void(double, double*)>& exact) {
  Fields q;
  interpolate(
      p,
      [](size_t n, const double*, const double*, const double*, double, double* const* out) {
        for (size_t i = 0; i < n; ++i)
          for (int c = 0; c < 3; ++c) out[c][i] = kE0[c], out[3 + c][i] = kH0[c];
      },
      0.0, q);
  be.set_state(q);
  // cfl 0.1: LSERK4's own error (4th order in dt, about 1e-10 at cfl 0.5 here) stays below 1e-12
  test::step_to(be, p, T, 0.1);
  be.get_state(q);
  double want[6], worst = 0;
  exact(T, want);
  for (int k = 0; k < p.K(); ++k)
    for (int c = 0; c < 6; ++c)
      for (int i = 0; i < p.Np(); ++i) worst = std::max(worst, std::abs(q.comp(k, c)[i] - want[c]) / 2.0);
  return worst;
}

struct HostBackend {
  const char* name;
  std::function<std::unique_ptr<Backend>(const Problem&)> make;
  double tol;  // rounding of the precision (the time integrator's error is far below)
};

std::vector<HostBackend> host_backends() {
  return {{"ref", [](const Problem& p) { return std::unique_ptr<Backend>(new RefBackend(p)); }, 1e-11},
          {"cpu double", [](const Problem& p) { return make_cpu_backend(p, false); }, 1e-11},
          {"cpu single", [](const Problem& p) { return make_cpu_backend(p, true); }, 2e-5}};
}

}  // namespace

TEST(AnalyticSources, ConductivityDecaysAUniformFieldAsExpMinusSigmaTOverEps) {
  const double eps = 2.5, mu = 1.5, sigma = 0.8, T = 1.3;
  const Problem p = uniform_problem(eps, mu, sigma);
  for (const HostBackend& b : host_backends()) {
    auto be = b.make(p);
    const double e = max_error(p, *be, T, [&](double t, double* out) {
      for (int c = 0; c < 3; ++c) out[c] = kE0[c] * std::exp(-sigma * t / eps), out[3 + c] = kH0[c];
    });
    EXPECT_LE(e, b.tol) << b.name;
    // the decay is really there: without it the error would be |E0| (1 - exp(-0.416)) / 2
    EXPECT_LT(e, 1e-3 * (1 - std::exp(-sigma * T / eps))) << b.name;
  }
}

TEST(AnalyticSources, CurrentDrivesAUniformFieldAsMinusJOverEps) {
  const double eps = 2.5, mu = 1.5, T = 1.3;
  Problem p = uniform_problem(eps, mu, 0);
  const double J0[3] = {0.7, -0.4, 1.1};
  p.current = space_time_field_from_text({"0.7*cos(t)", "-0.4*cos(t)", "1.1*cos(t)"}, "sources.J");
  for (const HostBackend& b : host_backends()) {
    auto be = b.make(p);
    const double e = max_error(p, *be, T, [&](double t, double* out) {
      for (int c = 0; c < 3; ++c) out[c] = kE0[c] - J0[c] * std::sin(t) / eps, out[3 + c] = kH0[c];
    });
    EXPECT_LE(e, b.tol) << b.name;
  }
}
