// The TM110 cavity mode (cavity.hpp) stepped by a backend: the L2 error at T = 0.25 (cfl 0.25).
#pragma once

#include <cmath>

#include "cavity.hpp"
#include "simulate.hpp"

namespace dgmax::test {

// ||(E, H) - exact||_L2 at T = 0.25 after stepping the cavity mode on `p` with `be`.
inline double cavity_error(const Problem& p, Backend& be) {
  Fields q;
  interpolate(p, cavity_mode(), 0, q);
  be.set_state(q);
  const double T = 0.25;
  step_to(be, p, T, 0.25);
  be.get_state(q);
  const ErrorNorms e = error_norms(p, q, cavity_mode(), T);
  return std::hypot(e.L2_E, e.L2_H);
}

}  // namespace dgmax::test
