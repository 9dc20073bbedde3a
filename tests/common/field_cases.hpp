// Space-time field expressions that use every function and operator of the expression language,
// user constants and pi, and a checker that compares a compiled evaluator (cpu or cuda kernels)
// with the interpreter (dsl::ScalarFunction, what the ref backend runs) at random points and times.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "mixed_problem.hpp"
#include "expect_user_error.hpp"
#include "solver/backends/backend.hpp"
#include "solver/physics/space_time_field.hpp"

namespace dgmax::test {

inline const std::map<std::string, double>& field_constants() {
  static const std::map<std::string, double> c = {{"omega", 2.7182818284590451}, {"a0", -0.3}, {"big", 1e300}};
  return c;
}

// Four fields (initial, exact, current, incident) of 6, 6, 3, 6 components; together they call
// each function at least once, with constant, variable and folded arguments.
inline std::vector<std::vector<std::string>> field_case_texts() {
  return {
      // initial (t = 0 when used as a state; at random t here)
      {"sin(pi*x)*cos(omega*y) - tan(z/3)", "asin(x/2) + acos(y/2) - atan(z)", "atan2(y, x) + atan2(-1, a0)",
       "sinh(x) + cosh(y) - tanh(z)", "exp(-x^2 - (y - a0)^2/0.01) + log(2 + z)", "sqrt(abs(x*y)) - sqrt(2)"},
      // exact
      {"min(x, y) + max(z, t) - min(2, 3)", "pow(abs(x) + 1, y) + pow(x, 2) + x^3 - 2^(-x)", "floor(3*x) + ceil(2*y - t)",
       "sign(x) + sign(0) + heaviside(y) + heaviside(-0)", "erf(x + y*t) - erf(0.5) + besselj(2, 3*x + t) - bessely(1, 2 + y^2)", "-x^2 + (x + y)*(x - y)/4 + 1/3*t"},
      // current: time-dependent source like a user's
      {"exp(-((x-0.5)^2 + (y-0.5)^2 + (z-0.5)^2)/0.01)*sin(10*t)", "big*x*1e-300", "heaviside(t - 0.5)*cos(omega*t)"},
      // incident: a plane pulse, a variable exponent, NaN- and inf-producing values
      {"exp(-((x - t + 0.5)/0.2)^2)", "0", "-exp(-((x - t + 0.5)/0.2)^2)", "pow(abs(y) + 0.5, z)",
       "log(x)", "1/(x - x)"},
  };
}

// Both values the same double, or both NaN.
inline bool same_double(double a, double b) {
  if (std::isnan(a) && std::isnan(b)) return true;
  return std::memcmp(&a, &b, sizeof a) == 0 || a == b;  // +0 == -0 counts as equal
}

// `eval(which, pts [n][4], out [n][6])` for `which` = 0..3 (initial, exact, current, incident);
// returns the largest difference in units of the value's magnitude (0 when bitwise equal).
// Points in [-1, 1]^3, t in [0, 3].
inline double max_field_difference(const std::function<void(int, const std::vector<double>&, std::vector<double>&)>& eval,
                                   size_t n = 2000, unsigned seed = 1) {
  const auto texts = field_case_texts();
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(-1, 1), ut(0, 3);
  std::vector<double> pts(4 * n), x(n), y(n), z(n);
  for (size_t m = 0; m < n; ++m) {
    x[m] = pts[4 * m] = u(rng);
    y[m] = pts[4 * m + 1] = u(rng);
    z[m] = pts[4 * m + 2] = u(rng);
    pts[4 * m + 3] = m % 7 == 0 ? 0.0 : ut(rng);  // t = 0 exactly, and t = 0.5 (heaviside) below
    if (m % 11 == 0) pts[4 * m + 3] = 0.5;
  }
  double worst = 0;
  for (int w = 0; w < 4; ++w) {
    const SpaceTimeField f = space_time_field_from_text(texts[w], "field" + std::to_string(w), field_constants());
    std::vector<double> out(6 * n, 0.0);
    eval(w, pts, out);
    const int nc = static_cast<int>(texts[w].size());
    for (size_t m = 0; m < n; ++m) {
      std::vector<double> ref(nc);
      std::vector<double*> cols(nc);
      for (int c = 0; c < nc; ++c) cols[c] = &ref[c];
      const double t = pts[4 * m + 3];
      f.eval(1, &x[m], &y[m], &z[m], t, cols.data());
      for (int c = 0; c < nc; ++c) {
        const double a = out[6 * m + c], b = ref[c];
        if (same_double(a, b)) continue;
        if (std::isnan(a) != std::isnan(b) || std::isinf(a) || std::isinf(b)) {
          ADD_FAILURE() << "field " << w << " component " << c << " (" << texts[w][c] << ") at (" << x[m] << ", "
                        << y[m] << ", " << z[m] << ", " << t << "): compiled " << a << ", interpreted " << b;
          return INFINITY;
        }
        worst = std::max(worst, std::abs(a - b) / std::max(1.0, std::abs(b)));
      }
      for (int c = nc; c < 6; ++c) {  // components a field does not have are NaN
        EXPECT_TRUE(std::isnan(out[6 * m + c])) << "field " << w << " component " << c;
      }
    }
  }
  return worst;
}

// A backend's norms of a random state equal the host's: sums accumulated in double in both
// precisions (only the order differs), except that materials are stored in the kernels'
// precision (float eps, mu: 6e-8 relative). Also checks that repeated reductions are identical.
inline void expect_norms_equal_host(const Problem& p, Backend& be, bool single, double t = 0.7) {
  Fields q = random_state(p, 3);
  if (single)
    for (double& v : q.q) v = static_cast<float>(v);  // so both sides see the same state
  be.set_state(q);
  const NormSample s = be.norms(t);
  const double W = electromagnetic_energy(p, q);
  const ErrorNorms e = error_norms(p, q, p.exact.eval, t);
  EXPECT_NEAR(s.energy, W, (single ? 2e-7 : 1e-13) * W);
  EXPECT_NEAR(s.errors.L2_E, e.L2_E, 1e-13 * e.L2_E);
  EXPECT_NEAR(s.errors.L2_H, e.L2_H, 1e-13 * e.L2_H);
  EXPECT_NEAR(s.errors.Linf_E, e.Linf_E, 1e-14 * e.Linf_E);
  EXPECT_NEAR(s.errors.Linf_H, e.Linf_H, 1e-14 * e.Linf_H);
  const NormSample s2 = be.norms(t);
  EXPECT_EQ(s.energy, s2.energy);
  EXPECT_EQ(s.errors.L2_E, s2.errors.L2_E);
}

// The checks the cpu and cuda backend tests share; `make(p, single)` builds the backend.
using BackendMaker = std::function<std::unique_ptr<Backend>(const Problem&, bool single)>;

// The backend's initial state against the host's interpolation, then its norms against the
// host's: max |difference| of the states is at most `state_tol` (single: one rounding to float of
// values of size <= 3, 4e-7).
inline void expect_initial_state_and_norms_equal_host(const BackendMaker& make, bool single, double state_tol) {
  Problem p = mixed_problem(4, 9);
  p.initial = space_time_field_from_text(
      {"sin(pi*x)*y", "cos(z) - x", "exp(-x^2)", "x*y*z", "atan2(y, x + 3)", "sqrt(1 + z^2)"}, "initial");
  p.exact = space_time_field_from_text({"sin(x + t)", "y", "z*t", "0", "cos(x*y)", "x - t"}, "exact");
  auto be = make(p, single);
  be->init_state();
  Fields q;
  be->get_state(q);
  const Fields host = interpolate_initial(p);
  double d = 0;
  for (size_t n = 0; n < q.q.size(); ++n) d = std::max(d, std::abs(q.q[n] - host.q[n]));
  EXPECT_LE(d, state_tol) << (single ? "single" : "double");
  expect_norms_equal_host(p, *be, single);
}

// A NaN in the exact solution gives NaN errors (L2 and Linf), not a finite maximum.
inline void expect_norms_propagate_nan(const BackendMaker& make) {
  Problem p = mixed_problem(2, 1);
  p.exact = space_time_field_from_text({"0", "0", "log(x - 100)", "0", "0", "0"}, "exact");
  auto be = make(p, false);
  be->set_state(random_state(p, 1));
  const NormSample s = be->norms(0);
  EXPECT_TRUE(std::isnan(s.errors.L2_E));
  EXPECT_TRUE(std::isnan(s.errors.Linf_E));
  EXPECT_FALSE(std::isnan(s.errors.L2_H));
}

// A non-finite initial value (NaN in double; in single also a double value that overflows
// float) is a UserError naming the component and the point.
inline void expect_nonfinite_initial_is_located(const BackendMaker& make, bool single) {
  Problem p = mixed_problem(2, 2);
  p.initial = space_time_field_from_text({"0", "0", "0", "0", single ? "1e39 + x" : "log(x - 100)", "0"}, "initial.H");
  auto be = make(p, single);
  expect_user_error([&] { be->init_state(); }, {"'initial.H[4]' is", single ? "infinite" : "NaN", "(x, y, z) = ("});
}

// A problem with all four fields set from field_case_texts().
inline void set_case_fields(Problem& p) {
  const auto texts = field_case_texts();
  p.initial = space_time_field_from_text(texts[0], "initial", field_constants());
  p.exact = space_time_field_from_text(texts[1], "exact", field_constants());
  p.current = space_time_field_from_text(texts[2], "sources.J", field_constants());
  p.incident = space_time_field_from_text(texts[3], "incident", field_constants());
}

}  // namespace dgmax::test
