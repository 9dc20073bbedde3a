// The TM110 mode of the PEC unit-cube cavity, an exact solution of Maxwell's equations
// (eps = mu = 1, omega = sqrt(2)·pi):
//   E = (0, 0, sin(pi x) sin(pi y) cos(omega t))
//   H = (-pi/omega sin(pi x) cos(pi y) sin(omega t), pi/omega cos(pi x) sin(pi y) sin(omega t), 0)
#pragma once

#include <cmath>

#include "solver/physics/problem.hpp"

namespace dgmax::test {

inline FieldFn cavity_mode() {
  return [](size_t n, const double* x, const double* y, const double*, double t, double* const* out) {
    const double pi = M_PI, w = std::sqrt(2.0) * pi;
    for (size_t i = 0; i < n; ++i) {
      const double sx = std::sin(pi * x[i]), cx = std::cos(pi * x[i]);
      const double sy = std::sin(pi * y[i]), cy = std::cos(pi * y[i]);
      out[0][i] = 0;
      out[1][i] = 0;
      out[2][i] = sx * sy * std::cos(w * t);
      out[3][i] = -pi / w * sx * cy * std::sin(w * t);
      out[4][i] = pi / w * cx * sy * std::sin(w * t);
      out[5][i] = 0;
    }
  };
}

}  // namespace dgmax::test
