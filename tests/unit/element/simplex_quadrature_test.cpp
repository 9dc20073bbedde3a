// Simplex quadrature against the closed forms of ∫ λ1^a λ2^b λ3^c over the simplex: the conical
// products integrate every monomial of their degree exactly and not the first degree beyond; every
// tabulated symmetric rule is exact to its degree, positive, inside and invariant under the
// simplex's vertex permutations; the chosen rule is exact and never has more points than the
// conical product.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <vector>

#include "solver/element/simplex_quadrature.hpp"
#include "solver/element/symmetric_rules_data.hpp"

using namespace dgmax;

namespace {
double fact(int n) { return std::tgamma(n + 1.0); }

// ∫ (1+r)^a (1+s)^b (1+t)^c over the reference tetrahedron (1 + r = 2 λ1, ...; volume 4/3)
double tet_exact(int a, int b, int c) {
  return std::pow(2.0, a + b + c) * 8 * fact(a) * fact(b) * fact(c) / fact(a + b + c + 3);
}
// ∫ (1+r)^a (1+s)^b over the reference triangle (area 2)
double tri_exact(int a, int b) { return std::pow(2.0, a + b) * 4 * fact(a) * fact(b) / fact(a + b + 2); }

double tet_rule(const SimplexRule& q, int a, int b, int c) {
  double sum = 0;
  for (int i = 0; i < q.w.size(); ++i)
    sum += q.w(i) * std::pow(1 + q.r(i), a) * std::pow(1 + q.s(i), b) * std::pow(1 + q.t(i), c);
  return sum;
}
double tri_rule(const SimplexRule& q, int a, int b) {
  double sum = 0;
  for (int i = 0; i < q.w.size(); ++i) sum += q.w(i) * std::pow(1 + q.r(i), a) * std::pow(1 + q.s(i), b);
  return sum;
}

// Every monomial of total degree <= degree, to 1e-13 relative (the integrands are >= 0 on the
// simplex and the weights positive, so the sums do not cancel).
void expect_tet_exact(const SimplexRule& q, int degree) {
  for (int a = 0; a <= degree; ++a)
    for (int b = 0; a + b <= degree; ++b)
      for (int c = 0; a + b + c <= degree; ++c)
        EXPECT_NEAR(tet_rule(q, a, b, c), tet_exact(a, b, c), 1e-13 * std::max(1.0, tet_exact(a, b, c)))
            << "degree " << degree << ": " << a << " " << b << " " << c;
}
void expect_tri_exact(const SimplexRule& q, int degree) {
  for (int a = 0; a <= degree; ++a)
    for (int b = 0; a + b <= degree; ++b)
      EXPECT_NEAR(tri_rule(q, a, b), tri_exact(a, b), 1e-13 * std::max(1.0, tri_exact(a, b)))
          << "degree " << degree << ": " << a << " " << b;
}

// A table's rows as SimplexRule (dim = 2: (r, s, w); dim = 3: (r, s, t, w)).
SimplexRule rule_of(const SymmetricRuleData& table, int dim) {
  SimplexRule q;
  q.r.resize(table.points);
  q.s.resize(table.points);
  q.t = Eigen::VectorXd::Zero(table.points);
  q.w.resize(table.points);
  for (int i = 0; i < table.points; ++i) {
    const double* row = table.data + i * (dim + 1);
    q.r(i) = row[0];
    q.s(i) = row[1];
    if (dim == 3) q.t(i) = row[2];
    q.w(i) = row[dim];
  }
  return q;
}

// Barycentric coordinates of point i: [dim + 1] (λ0 of the vertex (-1, ..., -1) first).
std::vector<double> barycentric(const SimplexRule& q, int i, int dim) {
  if (dim == 2) return {-(q.r(i) + q.s(i)) / 2, (1 + q.r(i)) / 2, (1 + q.s(i)) / 2};
  return {-(1 + q.r(i) + q.s(i) + q.t(i)) / 2, (1 + q.r(i)) / 2, (1 + q.s(i)) / 2, (1 + q.t(i)) / 2};
}

// Positive weights summing to the measure, points strictly inside, and each permutation of the
// vertices maps every point onto a point of the same weight.
void expect_symmetric_positive_inside(const SimplexRule& q, int dim, int degree) {
  const int n = static_cast<int>(q.w.size());
  EXPECT_NEAR(q.w.sum(), dim == 2 ? 2.0 : 4.0 / 3, 1e-14) << "degree " << degree;
  std::vector<std::vector<double>> lambda(n);
  for (int i = 0; i < n; ++i) {
    EXPECT_GT(q.w(i), 0) << "degree " << degree << ", point " << i;
    lambda[i] = barycentric(q, i, dim);
    EXPECT_GT(*std::min_element(lambda[i].begin(), lambda[i].end()), 0) << "degree " << degree << ", point " << i;
  }
  std::vector<int> perm(dim + 1);
  for (int m = 0; m <= dim; ++m) perm[m] = m;
  do {
    for (int i = 0; i < n; ++i) {
      bool found = false;
      for (int j = 0; j < n && !found; ++j) {
        bool same = std::abs(q.w(i) - q.w(j)) < 1e-14;
        for (int m = 0; m <= dim && same; ++m) same = std::abs(lambda[i][perm[m]] - lambda[j][m]) < 1e-14;
        found = same;
      }
      EXPECT_TRUE(found) << "degree " << degree << ": point " << i << " has no image";
    }
  } while (std::next_permutation(perm.begin(), perm.end()));
}
}  // namespace

TEST(SimplexQuadrature, ConicalTetrahedronRulesAreExactToTheirDegree) {
  for (int degree = 0; degree <= 16; ++degree) {
    const SimplexRule q = conical_tetrahedron_rule(degree);
    expect_tet_exact(q, degree);
    // (the next even degree is beyond it: a rule of degree 2n - 1 misses t^(2n))
    const int beyond = 2 * (degree / 2 + 1);
    EXPECT_GT(std::abs(tet_rule(q, 0, 0, beyond) - tet_exact(0, 0, beyond)), 1e-10 * tet_exact(0, 0, beyond));
  }
}

TEST(SimplexQuadrature, ConicalTriangleRulesAreExactToTheirDegree) {
  for (int degree = 0; degree <= 20; ++degree) expect_tri_exact(conical_triangle_rule(degree), degree);
}

TEST(SimplexQuadrature, TabulatedTetrahedronRulesAreExactSymmetricPositiveAndInside) {
  const auto tables = symmetric_tetrahedron_rules();
  ASSERT_FALSE(tables.empty());
  for (const SymmetricRuleData& table : tables) {
    const SimplexRule q = rule_of(table, 3);
    expect_tet_exact(q, table.degree);
    expect_symmetric_positive_inside(q, 3, table.degree);
  }
}

TEST(SimplexQuadrature, TabulatedTriangleRulesAreExactSymmetricPositiveAndInside) {
  const auto tables = symmetric_triangle_rules();
  ASSERT_FALSE(tables.empty());
  for (const SymmetricRuleData& table : tables) {
    const SimplexRule q = rule_of(table, 2);
    expect_tri_exact(q, table.degree);
    expect_symmetric_positive_inside(q, 2, table.degree);
  }
}

TEST(SimplexQuadrature, ChosenRulesAreExactAndNeverLargerThanTheConicalProduct) {
  for (int degree = 0; degree <= 60; ++degree) {
    const SimplexRule tet = tetrahedron_rule(degree), tri = triangle_rule(degree);
    EXPECT_LE(tet.w.size(), conical_tetrahedron_rule(degree).w.size()) << degree;
    EXPECT_LE(tri.w.size(), conical_triangle_rule(degree).w.size()) << degree;
    if (degree <= 24) {
      expect_tet_exact(tet, degree);
      expect_tri_exact(tri, degree);
    }
  }
  // the volume rule of N = q = 3 (2N + 3q - 3 = 12): the 123-point symmetric rule, not 7^3 points
  EXPECT_EQ(tetrahedron_rule(12).w.size(), 123);
  EXPECT_EQ(conical_tetrahedron_rule(12).w.size(), 343);
}
