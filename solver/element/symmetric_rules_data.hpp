// Tables of fully symmetric quadrature rules on the reference triangle and tetrahedron
// (Witherden & Vincent 2015; the numbers and their source in symmetric_rules_data.cpp).
// simplex_quadrature.hpp chooses among them; tests read them directly.
#pragma once

#include <span>

namespace dgmax {

struct SymmetricRuleData {
  int degree;          // exact for total degree <= degree
  int points;          // n
  const double* data;  // triangle: [n][3] (r, s, w); tetrahedron: [n][4] (r, s, t, w)
};

// One rule per degree, the one of fewest points; increasing degree, gaps where a degree has none.
std::span<const SymmetricRuleData> symmetric_triangle_rules();
std::span<const SymmetricRuleData> symmetric_tetrahedron_rules();

}  // namespace dgmax
