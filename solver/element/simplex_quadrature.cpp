#include "solver/element/simplex_quadrature.hpp"

#include "solver/element/jacobi.hpp"
#include "solver/element/symmetric_rules_data.hpp"
#include "solver/util/error.hpp"

namespace dgmax {

namespace {
// points per collapsed direction for total degree d: a Gauss rule of n points is exact to 2n - 1
int points_for(int degree) {
  DGMAX_ASSERT(degree >= 0 && degree <= 60, "simplex quadrature: degree out of range");
  return degree / 2 + 1;
}

// The tabulated rule of fewest points among those exact for `degree`; nullptr if none.
const SymmetricRuleData* fewest_points(std::span<const SymmetricRuleData> rules, int degree) {
  const SymmetricRuleData* best = nullptr;
  for (const SymmetricRuleData& rule : rules)
    if (rule.degree >= degree && (!best || rule.points < best->points)) best = &rule;
  return best;
}

// dim = 2: data [n][3] (r, s, w); dim = 3: [n][4] (r, s, t, w)
SimplexRule from_table(const SymmetricRuleData& table, int dim) {
  const int n = table.points, stride = dim + 1;
  SimplexRule rule;
  rule.r.resize(n);
  rule.s.resize(n);
  rule.t = Eigen::VectorXd::Zero(n);
  rule.w.resize(n);
  for (int i = 0; i < n; ++i) {
    const double* row = table.data + static_cast<size_t>(i) * stride;
    rule.r(i) = row[0];
    rule.s(i) = row[1];
    if (dim == 3) rule.t(i) = row[2];
    rule.w(i) = row[dim];
  }
  return rule;
}
}  // namespace

SimplexRule conical_triangle_rule(int degree) {
  const int n = points_for(degree);
  // r = (1+a)(1-b)/2 - 1, s = b: dr ds = (1-b)/2 da db, the (1-b) in the Gauss–Jacobi weight
  const GaussRule a = jacobi_gq(0, 0, n - 1), b = jacobi_gq(1, 0, n - 1);
  SimplexRule rule;
  rule.r.resize(n * n);
  rule.s.resize(n * n);
  rule.t = Eigen::VectorXd::Zero(n * n);
  rule.w.resize(n * n);
  int m = 0;
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < n; ++i, ++m) {
      rule.r(m) = (1 + a.x(i)) * (1 - b.x(j)) / 2 - 1;
      rule.s(m) = b.x(j);
      rule.w(m) = a.w(i) * b.w(j) / 2;
    }
  return rule;
}

SimplexRule conical_tetrahedron_rule(int degree) {
  const int n = points_for(degree);
  // r = (1+a)(1-b)(1-c)/4 - 1, s = (1+b)(1-c)/2 - 1, t = c:
  // dr ds dt = (1-b)/2 ((1-c)/2)^2 da db dc, the powers of (1-b), (1-c) in the weights
  const GaussRule a = jacobi_gq(0, 0, n - 1), b = jacobi_gq(1, 0, n - 1), c = jacobi_gq(2, 0, n - 1);
  SimplexRule rule;
  const int total = n * n * n;
  rule.r.resize(total);
  rule.s.resize(total);
  rule.t.resize(total);
  rule.w.resize(total);
  int m = 0;
  for (int l = 0; l < n; ++l)
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < n; ++i, ++m) {
        rule.r(m) = (1 + a.x(i)) * (1 - b.x(j)) * (1 - c.x(l)) / 4 - 1;
        rule.s(m) = (1 + b.x(j)) * (1 - c.x(l)) / 2 - 1;
        rule.t(m) = c.x(l);
        rule.w(m) = a.w(i) * b.w(j) * c.w(l) / 8;
      }
  return rule;
}

SimplexRule triangle_rule(int degree) {
  const int n = points_for(degree);
  const SymmetricRuleData* table = fewest_points(symmetric_triangle_rules(), degree);
  return table && table->points < n * n ? from_table(*table, 2) : conical_triangle_rule(degree);
}

SimplexRule tetrahedron_rule(int degree) {
  const int n = points_for(degree);
  const SymmetricRuleData* table = fewest_points(symmetric_tetrahedron_rules(), degree);
  return table && table->points < n * n * n ? from_table(*table, 3) : conical_tetrahedron_rule(degree);
}

}  // namespace dgmax
