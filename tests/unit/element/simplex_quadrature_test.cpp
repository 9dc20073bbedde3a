// The conical-product rules integrate every monomial of their degree exactly (against the
// closed forms of ∫ λ1^a λ2^b λ3^c over the simplex) and not the first degree beyond.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "solver/element/simplex_quadrature.hpp"

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
}  // namespace

TEST(SimplexQuadrature, TetrahedronRulesAreExactToTheirDegree) {
  for (int degree = 0; degree <= 16; ++degree) {
    const SimplexRule q = tetrahedron_rule(degree);
    for (int a = 0; a <= degree; ++a)
      for (int b = 0; a + b <= degree; ++b)
        for (int c = 0; a + b + c <= degree; ++c)
          EXPECT_NEAR(tet_rule(q, a, b, c), tet_exact(a, b, c), 1e-13 * std::max(1.0, tet_exact(a, b, c))) << degree << ": " << a << b << c;
    // (the next even degree is beyond it: a rule of degree 2n - 1 misses t^(2n))
    const int beyond = 2 * (degree / 2 + 1);
    EXPECT_GT(std::abs(tet_rule(q, 0, 0, beyond) - tet_exact(0, 0, beyond)), 1e-10 * tet_exact(0, 0, beyond));
  }
}

TEST(SimplexQuadrature, TriangleRulesAreExactToTheirDegree) {
  for (int degree = 0; degree <= 20; ++degree) {
    const SimplexRule q = triangle_rule(degree);
    for (int a = 0; a <= degree; ++a)
      for (int b = 0; a + b <= degree; ++b) {
        double sum = 0;
        for (int i = 0; i < q.w.size(); ++i) sum += q.w(i) * std::pow(1 + q.r(i), a) * std::pow(1 + q.s(i), b);
        EXPECT_NEAR(sum, tri_exact(a, b), 1e-13 * std::max(1.0, tri_exact(a, b))) << degree << ": " << a << b;
      }
  }
}
