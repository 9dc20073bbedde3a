// mixed_problem's every-path problem on curved elements: a warped box (curved_box.hpp) with
// set_mixed_physics (materials, every boundary condition, a current, an incident field) and
// compiled initial and exact fields, for comparing the generated backends' curved group with
// the ref backend.
#pragma once

#include "curved_box.hpp"
#include "mixed_problem.hpp"
#include "solver/physics/space_time_field.hpp"

namespace dgmax::test {

inline Problem curved_mixed_problem(int N, int q, unsigned seed, int cells = 2) {
  BoxSpec spec;
  spec.lower = {-0.5, -0.4, -0.3};
  spec.upper = {0.6, 0.5, 0.7};
  spec.cells = {cells, cells, cells};
  Problem p = warped_box_problem(spec, N, q, 0.12, 1.0);
  set_mixed_physics(p, seed);
  p.initial = space_time_field_from_text({"sin(3*x)*y", "cos(z) - x", "exp(-x^2)", "x*y*z", "atan2(y, x + 3)", "sqrt(1 + z^2)"},
                                         "initial");
  p.exact = space_time_field_from_text({"sin(x + t)", "y", "z*t", "0", "cos(x*y)", "x - t"}, "exact");
  return p;
}

}  // namespace dgmax::test
