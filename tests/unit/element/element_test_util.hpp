// Helpers shared by the element tests. Deliberately independent of solver/element: own
// Gauss–Legendre rule (Newton on the Legendre recurrence), own collapsed-coordinate quadratures,
// closed-form monomial integrals. Used to check the library against something it did not compute.
#pragma once

#include <Eigen/Dense>
#include <array>
#include <cmath>
#include <numbers>
#include <random>
#include <vector>

namespace dgmax::test {

// Unnormalized Legendre polynomial P_n(x) and its derivative, by the three-term recurrence.
// Templated so that tests can evaluate in long double where a basis is ill-conditioned.
template <class T>
void legendre(int n, T x, T& p, T& dp) {
  T p0 = 1, p1 = x;
  if (n == 0) {
    p = 1;
    dp = 0;
    return;
  }
  for (int k = 2; k <= n; ++k) {
    const T p2 = ((2 * k - 1) * x * p1 - (k - 1) * p0) / k;
    p0 = p1;
    p1 = p2;
  }
  p = p1;
  dp = (std::abs(1 - x * x) > T(1e-14)) ? n * (p0 - x * p1) / (1 - x * x)
                                        : T(0.5) * n * (n + 1) * std::pow(x, n + 1);
}

// q-point Gauss–Legendre rule on [-1,1] (exact for degree 2q-1).
struct Rule1D {
  std::vector<double> x, w;
};
inline Rule1D gauss_legendre(int q) {
  Rule1D g;
  g.x.resize(q);
  g.w.resize(q);
  for (int i = 0; i < q; ++i) {
    double x = std::cos(std::numbers::pi * (i + 0.75) / (q + 0.5));  // Chebyshev-like guess
    for (int it = 0; it < 100; ++it) {
      double p, dp;
      legendre(q, x, p, dp);
      const double dx = p / dp;
      x -= dx;
      if (std::abs(dx) < 1e-16) break;
    }
    double p, dp;
    legendre(q, x, p, dp);
    g.x[i] = x;
    g.w[i] = 2.0 / ((1.0 - x * x) * dp * dp);
  }
  return g;
}

// Collapsed (Duffy) quadrature on the reference tetrahedron from a q-point Gauss–Legendre rule
// per direction: exact for polynomials of degree <= 2q-3. rst: [nq][3], w: [nq], sum w = 4/3.
struct RuleTet {
  Eigen::MatrixXd rst;
  Eigen::VectorXd w;
};
inline RuleTet tet_quadrature(int q) {
  const Rule1D g = gauss_legendre(q);
  RuleTet t;
  t.rst.resize(q * q * q, 3);
  t.w.resize(q * q * q);
  int n = 0;
  for (int i = 0; i < q; ++i)
    for (int j = 0; j < q; ++j)
      for (int k = 0; k < q; ++k) {
        const double a = g.x[i], b = g.x[j], c = g.x[k];
        t.rst(n, 0) = 0.25 * (1.0 + a) * (1.0 - b) * (1.0 - c) - 1.0;
        t.rst(n, 1) = 0.5 * (1.0 + b) * (1.0 - c) - 1.0;
        t.rst(n, 2) = c;
        t.w(n) = g.w[i] * g.w[j] * g.w[k] * (1.0 - b) * (1.0 - c) * (1.0 - c) / 8.0;
        ++n;
      }
  return t;
}

// Collapsed quadrature on the reference triangle {(-1,-1),(1,-1),(-1,1)} (area 2): exact for
// degree <= 2q-2. rs: [nq][2], w: [nq].
struct RuleTri {
  Eigen::MatrixXd rs;
  Eigen::VectorXd w;
};
inline RuleTri tri_quadrature(int q) {
  const Rule1D g = gauss_legendre(q);
  RuleTri t;
  t.rs.resize(q * q, 2);
  t.w.resize(q * q);
  int n = 0;
  for (int i = 0; i < q; ++i)
    for (int j = 0; j < q; ++j) {
      const double a = g.x[i], b = g.x[j];
      t.rs(n, 0) = 0.5 * (1.0 + a) * (1.0 - b) - 1.0;
      t.rs(n, 1) = b;
      t.w(n) = g.w[i] * g.w[j] * 0.5 * (1.0 - b);
      ++n;
    }
  return t;
}

inline double factorial(int n) { return std::tgamma(n + 1.0); }

// ∫ over the reference tet of x^a y^b z^c w^d with the unit-tet coordinates x = (1+r)/2,
// y = (1+s)/2, z = (1+t)/2, w = 1-x-y-z (barycentric): Dirichlet's formula
// a! b! c! d! / (a+b+c+d+3)! on the unit tet, times the Jacobian 8.
inline double tet_barycentric_integral(int a, int b, int c, int d = 0) {
  return 8.0 * factorial(a) * factorial(b) * factorial(c) * factorial(d) /
         factorial(a + b + c + d + 3);
}

// Uniformly distributed random points inside the reference tetrahedron: [n][3].
inline Eigen::MatrixXd random_tet_points(int n, unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  Eigen::MatrixXd p(n, 3);
  for (int i = 0; i < n;) {
    const double x = u(gen), y = u(gen), z = u(gen);
    if (x + y + z > 1.0) continue;  // rejection from the unit cube
    p(i, 0) = 2.0 * x - 1.0;
    p(i, 1) = 2.0 * y - 1.0;
    p(i, 2) = 2.0 * z - 1.0;
    ++i;
  }
  return p;
}

// Monomial exponents (a, b, c) with a + b + c <= N.
inline std::vector<std::array<int, 3>> monomials_3d(int N) {
  std::vector<std::array<int, 3>> m;
  for (int a = 0; a <= N; ++a)
    for (int b = 0; a + b <= N; ++b)
      for (int c = 0; a + b + c <= N; ++c) m.push_back({a, b, c});
  return m;
}

}  // namespace dgmax::test
