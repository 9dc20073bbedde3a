// mixed_problem's every-path problem on curved elements: a warped box (curved_box.hpp) with random
// heterogeneous materials, every boundary condition by face, a current source, an incident field
// and compiled initial and exact fields, for comparing the generated backends' curved group with
// the ref backend.
#pragma once

#include <random>

#include "curved_box.hpp"
#include "solver/physics/space_time_field.hpp"

namespace dgmax::test {

inline Problem curved_mixed_problem(int N, int q, unsigned seed, int cells = 2) {
  BoxSpec spec;
  spec.lower = {-0.5, -0.4, -0.3};
  spec.upper = {0.6, 0.5, 0.7};
  spec.cells = {cells, cells, cells};
  Problem p = warped_box_problem(spec, N, q, 0.12, 1.0);
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
  p.initial = space_time_field_from_text({"sin(3*x)*y", "cos(z) - x", "exp(-x^2)", "x*y*z", "atan2(y, x + 3)", "sqrt(1 + z^2)"},
                                         "initial");
  p.exact = space_time_field_from_text({"sin(x + t)", "y", "z*t", "0", "cos(x*y)", "x - t"}, "exact");
  return p;
}

}  // namespace dgmax::test
