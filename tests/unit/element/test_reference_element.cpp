// The reference tetrahedron's operators (solver/element/reference_element.hpp).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <limits>
#include <random>
#include <thread>
#include <vector>

#include "expect_user_error.hpp"
#include "solver/element/basis.hpp"
#include "solver/element/nodes.hpp"
#include "solver/element/reference_element.hpp"
#include "solver/util/error.hpp"
#include "tests/unit/element/element_test_util.hpp"

namespace dgmax {
namespace {

// Orders every test covers (N = 1..10 is required); the exactness tests also run to kMaxOrder.
constexpr int kMaxTested = 10;

double pw(double x, int k) { return k == 0 ? 1.0 : std::pow(x, k); }

// Dr, Ds, Dt differentiate every monomial r^a s^b t^c, a+b+c <= N, exactly at the nodes.
// Required for N = 1..10; run up to 15 as well (worst measured: ~4e-11 at N = 15).
TEST(RefElement, DifferentiatesMonomialsExactly) {
  for (int N = 1; N <= kMaxOrder; ++N) {
    const RefElement& e = ref_element(N);
    const auto mons = test::monomials_3d(N);
    const int nm = static_cast<int>(mons.size());
    // Columns: the monomials and their exact derivatives at the nodes, each [Np][nm].
    Eigen::MatrixXd U(e.Np, nm), Ur(e.Np, nm), Us(e.Np, nm), Ut(e.Np, nm);
    for (int q = 0; q < nm; ++q) {
      const int a = mons[q][0], b = mons[q][1], c = mons[q][2];
      for (int n = 0; n < e.Np; ++n) {
        const double r = e.r(n), s = e.s(n), t = e.t(n);
        U(n, q) = pw(r, a) * pw(s, b) * pw(t, c);
        Ur(n, q) = a == 0 ? 0.0 : a * pw(r, a - 1) * pw(s, b) * pw(t, c);
        Us(n, q) = b == 0 ? 0.0 : b * pw(r, a) * pw(s, b - 1) * pw(t, c);
        Ut(n, q) = c == 0 ? 0.0 : c * pw(r, a) * pw(s, b) * pw(t, c - 1);
      }
    }
    const Eigen::MatrixXd Er = e.Dr * U - Ur, Es = e.Ds * U - Us, Et = e.Dt * U - Ut;
    double worst = 0.0;
    for (int q = 0; q < nm; ++q) {
      // Relative to the derivative's size (at least 1: the monomials themselves are O(1)).
      const double scale =
          std::max({1.0, Ur.col(q).cwiseAbs().maxCoeff(), Us.col(q).cwiseAbs().maxCoeff(),
                    Ut.col(q).cwiseAbs().maxCoeff()});
      const double err = std::max({Er.col(q).cwiseAbs().maxCoeff(), Es.col(q).cwiseAbs().maxCoeff(),
                                   Et.col(q).cwiseAbs().maxCoeff()});
      worst = std::max(worst, err / scale);
    }
    EXPECT_LT(worst, 1e-10) << "N=" << N;
  }
}

// The interpolant of a random degree-N polynomial, evaluated anywhere through the modal basis
// (V3D(x) invV u), reproduces the polynomial.
TEST(RefElement, InterpolatesDegreeNExactly) {
  std::mt19937 gen(11);
  std::uniform_real_distribution<double> coef(-1.0, 1.0);
  const Eigen::MatrixXd x = test::random_tet_points(200, 5);  // [200][3]
  for (int N = 1; N <= kMaxTested; ++N) {
    const RefElement& e = ref_element(N);
    const auto mons = test::monomials_3d(N);
    std::vector<double> cf(mons.size());
    for (double& c : cf) c = coef(gen);
    auto poly = [&](double r, double s, double t) {
      double v = 0.0;
      for (size_t q = 0; q < mons.size(); ++q)
        v += cf[q] * pw(r, mons[q][0]) * pw(s, mons[q][1]) * pw(t, mons[q][2]);
      return v;
    };
    Eigen::VectorXd u(e.Np);
    for (int n = 0; n < e.Np; ++n) u(n) = poly(e.r(n), e.s(n), e.t(n));
    const Eigen::MatrixXd Vx = vandermonde_3d(N, x.col(0), x.col(1), x.col(2));  // [200][Np]
    const Eigen::VectorXd ux = Vx * (e.invV * u);
    Eigen::VectorXd exact(x.rows());
    for (int i = 0; i < x.rows(); ++i) exact(i) = poly(x(i, 0), x(i, 1), x(i, 2));
    EXPECT_LT((ux - exact).cwiseAbs().maxCoeff(),
              1e-11 * std::max(1.0, exact.cwiseAbs().maxCoeff()))
        << "N=" << N;
    // V invV = I at the nodes themselves.
    EXPECT_LT((e.V * e.invV - Eigen::MatrixXd::Identity(e.Np, e.Np)).cwiseAbs().maxCoeff(), 1e-12);
  }
}

// M is symmetric positive definite and integrates products of degree-N polynomials exactly:
// with unit-tet coordinates x = (1+r)/2, y = (1+s)/2, z = (1+t)/2 the monomials x^a y^b z^c,
// a+b+c <= N, span P_N, and u^T M v must equal 8 (a+a')!(b+b')!(c+c')!/(|a|+|a'|+3)!.
// Required for N = 1..10; run up to 15 as well (worst measured: ~2e-13 at N = 15).
TEST(RefElement, MassMatrixSpdAndExact) {
  for (int N = 1; N <= kMaxOrder; ++N) {
    const RefElement& e = ref_element(N);
    EXPECT_EQ((e.M - e.M.transpose()).cwiseAbs().maxCoeff(), 0.0);
    // Cholesky succeeds iff the symmetric M is positive definite; the spectrum (slower) for
    // N <= 10, where M's smallest eigenvalue is 1/sigma_max(V)^2 > 0.
    EXPECT_EQ(e.M.llt().info(), Eigen::Success) << "N=" << N;
    if (N <= kMaxTested) {
      Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eig(e.M, Eigen::EigenvaluesOnly);
      EXPECT_GT(eig.eigenvalues().minCoeff(), 0.0) << "N=" << N;
    }

    const auto mons = test::monomials_3d(N);
    const int nm = static_cast<int>(mons.size());
    ASSERT_EQ(nm, e.Np);
    Eigen::MatrixXd U(e.Np, nm);  // [Np][nm] monomial values at the nodes
    for (int q = 0; q < nm; ++q)
      for (int n = 0; n < e.Np; ++n)
        U(n, q) = pw((1 + e.r(n)) / 2, mons[q][0]) * pw((1 + e.s(n)) / 2, mons[q][1]) *
                  pw((1 + e.t(n)) / 2, mons[q][2]);
    const Eigen::MatrixXd G = U.transpose() * e.M * U;
    double worst = 0.0;
    for (int p = 0; p < nm; ++p)
      for (int q = 0; q < nm; ++q) {
        const double exact = test::tet_barycentric_integral(
            mons[p][0] + mons[q][0], mons[p][1] + mons[q][1], mons[p][2] + mons[q][2]);
        worst = std::max(worst, std::abs(G(p, q) - exact));
      }
    // Absolute: the monomials are bounded by 1 on the tet, so |u^T M v| <= 4/3.
    EXPECT_LT(worst, 1e-12) << "N=" << N;
    // And the fourth barycentric coordinate w = 1-x-y-z: ∫ w^N (1+r)/2 = 8 N!/(N+4)!.
    Eigen::VectorXd wN(e.Np), x1(e.Np);
    for (int n = 0; n < e.Np; ++n) {
      wN(n) = pw(-(1 + e.r(n) + e.s(n) + e.t(n)) / 2, N);
      x1(n) = (1 + e.r(n)) / 2;
    }
    EXPECT_NEAR(wN.dot(e.M * x1), test::tet_barycentric_integral(1, 0, 0, N), 1e-13);
  }
}

// Face masks: exactly Nfp nodes on each face plane, ascending, containing the face's vertices,
// and no other node on that plane.
TEST(RefElement, FaceMasks) {
  const int face_vertices[4][3] = {{0, 1, 2}, {0, 1, 3}, {1, 2, 3}, {0, 2, 3}};
  for (int N = 1; N <= kMaxTested; ++N) {
    const RefElement& e = ref_element(N);
    ASSERT_EQ(e.Fmask.rows(), e.Nfp);
    ASSERT_EQ(e.Fmask.cols(), 4);
    for (int f = 0; f < 4; ++f) {
      auto dist = [&](int n) {
        const double d[4] = {1 + e.t(n), 1 + e.s(n), 1 + e.r(n) + e.s(n) + e.t(n), 1 + e.r(n)};
        return std::abs(d[f]);
      };
      int on_plane = 0;
      for (int n = 0; n < e.Np; ++n) on_plane += dist(n) < 1e-10;
      EXPECT_EQ(on_plane, e.Nfp) << "N=" << N << " face " << f;
      for (int i = 0; i < e.Nfp; ++i) {
        EXPECT_LT(dist(e.Fmask(i, f)), 1e-13);
        if (i > 0) {
          EXPECT_LT(e.Fmask(i - 1, f), e.Fmask(i, f));
        }
      }
      for (int v : face_vertices[f]) {
        bool found = false;
        for (int i = 0; i < e.Nfp; ++i) found |= e.Fmask(i, f) == e.vertex_node[v];
        EXPECT_TRUE(found) << "N=" << N << " face " << f << " vertex " << v;
      }
    }
  }
}

// Face nodes in face coordinates are the 2D warp & blend nodes — index by index, in the same
// order — when the triangle nodes are built with the TET's alpha (warp_blend_alpha_3d(N)).
// With the triangle-optimal alpha (warp_blend_alpha_2d(N)) they differ: by ~1e-7 at N = 4 (the
// two tables hold 0.1001 vs 0.1002 there) and by > 1e-4 from N = 5 on; for N <= 3 alpha has no
// effect on a triangle (no interior node, or only the centroid).
TEST(RefElement, FaceNodesAreTriangleNodesWithTetAlpha) {
  for (int N = 1; N <= kMaxTested; ++N) {
    const RefElement& e = ref_element(N);
    const Eigen::MatrixXd tri_tet_alpha = warp_blend_nodes_2d(N, warp_blend_alpha_3d(N));
    const Eigen::MatrixXd tri_opt_alpha = warp_blend_nodes_2d(N);
    for (int f = 0; f < 4; ++f) {
      double err_tet = 0.0, err_opt = 0.0;
      for (int i = 0; i < e.Nfp; ++i) {
        const int n = e.Fmask(i, f);
        const double x[3] = {e.r(n), e.s(n), e.t(n)};
        const Eigen::RowVector2d p(x[kFaceCoords[f][0]], x[kFaceCoords[f][1]]);
        err_tet = std::max(err_tet, (p - tri_tet_alpha.row(i)).norm());
        err_opt = std::max(err_opt, (p - tri_opt_alpha.row(i)).norm());
      }
      EXPECT_LT(err_tet, 1e-10) << "N=" << N << " face " << f;
      if (N >= 5) {
        EXPECT_GT(err_opt, 1e-4) << "N=" << N << " face " << f;
      } else if (N == 4) {
        EXPECT_GT(err_opt, 1e-9) << "N=" << N << " face " << f;
      } else {
        EXPECT_LT(err_opt, 1e-10) << "N=" << N << " face " << f;
      }
    }
  }
}

// Face mass matrices, computed independently of the library's bases and Gauss rules: the
// Lagrange polynomials of the face nodes are expressed in a tensor Legendre basis P_i(x)P_j(y),
// i+j <= N, and their products integrated with the tests' own collapsed Gauss–Legendre rule on
// the reference triangle (area 2 = the face's area in face coordinates). That basis is badly
// conditioned on the triangle (cond ~ 3e7 at N = 10, which costs ~1e-10 in double), so this
// computation runs in long double (64-bit mantissa) and is accurate to ~1e-14 relative.
// Then M LIFT must equal these matrices placed at the face nodes.
TEST(RefElement, FaceMassAndLift) {
  using LD = long double;
  using MatL = Eigen::Matrix<LD, Eigen::Dynamic, Eigen::Dynamic>;
  for (int N = 1; N <= kMaxTested; ++N) {
    const RefElement& e = ref_element(N);
    const test::RuleTri q = test::tri_quadrature(N + 2);  // exact to degree 2N+2
    auto legendre_basis = [N](LD x, LD y) {
      Eigen::Matrix<LD, 1, Eigen::Dynamic> row((N + 1) * (N + 2) / 2);
      int m = 0;
      for (int i = 0; i <= N; ++i)
        for (int j = 0; i + j <= N; ++j) {
          LD pi, pj, d;
          test::legendre<LD>(i, x, pi, d);
          test::legendre<LD>(j, y, pj, d);
          row(m++) = pi * pj;
        }
      return row;
    };
    const int nq = static_cast<int>(q.w.size());
    MatL Bq(nq, e.Nfp);  // [nq][Nfp] Legendre basis at the quadrature points
    for (int k = 0; k < nq; ++k) Bq.row(k) = legendre_basis(q.rs(k, 0), q.rs(k, 1));

    Eigen::MatrixXd E = Eigen::MatrixXd::Zero(e.Np, 4 * e.Nfp);  // [Np][4 Nfp]
    for (int f = 0; f < 4; ++f) {
      MatL B(e.Nfp, e.Nfp);  // [Nfp][Nfp] Legendre basis at the face nodes
      for (int i = 0; i < e.Nfp; ++i) {
        const int n = e.Fmask(i, f);
        const double x[3] = {e.r(n), e.s(n), e.t(n)};
        B.row(i) = legendre_basis(x[kFaceCoords[f][0]], x[kFaceCoords[f][1]]);
      }
      // Lagrange polynomials at the quadrature points: Lq = Bq B^{-1}, i.e. B^T Lq^T = Bq^T.
      const MatL Lq = B.transpose().partialPivLu().solve(Bq.transpose()).transpose();  // [nq][Nfp]
      const MatL Mq = Lq.transpose() * q.w.cast<LD>().asDiagonal() * Lq;
      const Eigen::MatrixXd Mf = Mq.cast<double>();
      EXPECT_LT((Mf - e.face_mass[f]).cwiseAbs().maxCoeff(), 1e-12 * Mf.cwiseAbs().maxCoeff())
          << "N=" << N << " face " << f;
      EXPECT_NEAR(e.face_mass[f].sum(), 2.0, 1e-12);  // ∫ 1 over the face in face coordinates
      for (int i = 0; i < e.Nfp; ++i) E.row(e.Fmask(i, f)).segment(f * e.Nfp, e.Nfp) += Mf.row(i);
    }
    ASSERT_EQ(e.LIFT.rows(), e.Np);
    ASSERT_EQ(e.LIFT.cols(), 4 * e.Nfp);
    EXPECT_LT((e.M * e.LIFT - E).cwiseAbs().maxCoeff(), 1e-12 * E.cwiseAbs().maxCoeff())
        << "N=" << N;
  }
}

// The HW convention on the slanted face 2 (r+s+t = -1), parametrized by (s, t): the true surface
// integral is sqrt(3) times the face-coordinate one (true area 2 sqrt(3), face-coordinate area 2).
// Checked for ∫ (1+s)^2 over the true face against 1^T face_mass[2] v, v = (1+s)^2 at the nodes.
TEST(RefElement, SlantedFaceConvention) {
  const RefElement& e = ref_element(5);
  Eigen::VectorXd v(e.Nfp);
  for (int i = 0; i < e.Nfp; ++i) v(i) = std::pow(1 + e.s(e.Fmask(i, 2)), 2);
  const double face_coords = Eigen::VectorXd::Ones(e.Nfp).dot(e.face_mass[2] * v);
  // True face: x(a,b) = v1 + (v2-v1)(1+a)/2 + (v3-v1)(1+b)/2 over the reference triangle (a,b),
  // with the face's vertices v1 = (1,-1,-1), v2 = (-1,1,-1), v3 = (-1,-1,1); the area element is
  // |(v2-v1) x (v3-v1)| / 4 per unit (a,b) area.
  const Eigen::Vector3d v1(1, -1, -1), v2(-1, 1, -1), v3(-1, -1, 1);
  const double dA = (v2 - v1).cross(v3 - v1).norm() / 4.0;
  const test::RuleTri q = test::tri_quadrature(6);
  double true_integral = 0.0;
  for (int k = 0; k < q.w.size(); ++k) {
    const Eigen::Vector3d x = v1 + (v2 - v1) * (1 + q.rs(k, 0)) / 2 + (v3 - v1) * (1 + q.rs(k, 1)) / 2;
    true_integral += q.w(k) * dA * std::pow(1 + x(1), 2);
  }
  EXPECT_NEAR(true_integral, std::sqrt(3.0) * face_coords, 1e-12);
  EXPECT_NEAR(face_coords, 4.0 / 3.0, 1e-12);  // ∫_{ref tri} (1+s)^2 = 4/3
}

TEST(RefElement, SizesAndVertices) {
  for (int N = 1; N <= 15; ++N) {
    const RefElement& e = ref_element(N);
    EXPECT_EQ(e.N, N);
    EXPECT_EQ(e.Np, (N + 1) * (N + 2) * (N + 3) / 6);
    EXPECT_EQ(e.Nfp, (N + 1) * (N + 2) / 2);
    for (const Eigen::MatrixXd* A : {&e.V, &e.invV, &e.M, &e.Dr, &e.Ds, &e.Dt}) {
      EXPECT_EQ(A->rows(), e.Np);
      EXPECT_EQ(A->cols(), e.Np);
      EXPECT_TRUE(A->allFinite());
    }
    EXPECT_TRUE(e.LIFT.allFinite());
    const double vert[4][3] = {{-1, -1, -1}, {1, -1, -1}, {-1, 1, -1}, {-1, -1, 1}};
    for (int v = 0; v < 4; ++v) {
      EXPECT_NEAR(e.r(e.vertex_node[v]), vert[v][0], 1e-14);
      EXPECT_NEAR(e.s(e.vertex_node[v]), vert[v][1], 1e-14);
      EXPECT_NEAR(e.t(e.vertex_node[v]), vert[v][2], 1e-14);
    }
    // Derivatives of constants vanish; Dr of r is 1 (also for N = 11..15, beyond the monomial
    // test).
    EXPECT_LT((e.Dr * Eigen::VectorXd::Ones(e.Np)).cwiseAbs().maxCoeff(), 1e-10);
    EXPECT_LT((e.Dt * e.t - Eigen::VectorXd::Ones(e.Np)).cwiseAbs().maxCoeff(), 1e-10);
  }
}

TEST(RefElement, RejectsUnsupportedOrders) {
  for (const int N : {0, 16, -3}) {
    const UserError e = test::expect_hinted_user_error([&] { make_ref_element(N); },
                                                       {"polynomial order " + std::to_string(N) + " is not supported"});
    EXPECT_NE(e.hint().find("between 1 and 15"), std::string::npos) << e.render();
  }
  test::expect_hinted_user_error([] { ref_element(0); }, {"polynomial order 0 is not supported"});
  test::expect_hinted_user_error([] { ref_element(16); }, {"polynomial order 16 is not supported"});
  test::expect_hinted_user_error([] { ref_element_as<float>(16); }, {"polynomial order 16 is not supported"});
  try {
    make_ref_element(16);
  } catch (const UserError& err) {
    EXPECT_NE(err.message().find("16"), std::string::npos);
    EXPECT_FALSE(err.hint().empty());
  }
}

// The cache hands every thread the same object, built once.
TEST(RefElement, CacheIsSharedAcrossThreads) {
  std::vector<const RefElement*> seen(8, nullptr);
  std::vector<std::thread> threads;
  for (int i = 0; i < 8; ++i) threads.emplace_back([&seen, i] { seen[i] = &ref_element(7); });
  for (auto& th : threads) th.join();
  for (int i = 0; i < 8; ++i) EXPECT_EQ(seen[i], seen[0]);
  EXPECT_EQ(&ref_element(7), seen[0]);
  const RefElement fresh = make_ref_element(7);
  EXPECT_EQ((fresh.Dr - seen[0]->Dr).cwiseAbs().maxCoeff(), 0.0);
}

TEST(RefElement, SinglePrecisionCopy) {
  const RefElement& e = ref_element(6);
  const RefElementT<float>& ef = ref_element_as<float>(6);
  EXPECT_EQ(&ef, &ref_element_as<float>(6));
  EXPECT_EQ(ef.Np, e.Np);
  EXPECT_EQ(ef.Nfp, e.Nfp);
  EXPECT_EQ((ef.Fmask - e.Fmask).cwiseAbs().maxCoeff(), 0);
  // Rounded once from double: each entry within half an ulp of float.
  const double eps = std::numeric_limits<float>::epsilon();
  EXPECT_LE((ef.Dr.cast<double>() - e.Dr).cwiseAbs().maxCoeff(), eps * e.Dr.cwiseAbs().maxCoeff());
  EXPECT_LE((ef.LIFT.cast<double>() - e.LIFT).cwiseAbs().maxCoeff(),
            eps * e.LIFT.cwiseAbs().maxCoeff());
  EXPECT_LE((ef.face_mass[3].cast<double>() - e.face_mass[3]).cwiseAbs().maxCoeff(),
            eps * e.face_mass[3].cwiseAbs().maxCoeff());
  // Still differentiates a quadratic to single precision.
  const Eigen::VectorXf u = ef.r.cwiseProduct(ef.s);
  EXPECT_LT((ef.Dr * u - ef.s).cwiseAbs().maxCoeff(), 1e-4f);
  const RefElementT<double>& ed = ref_element_as<double>(6);
  EXPECT_EQ((ed.LIFT - e.LIFT).cwiseAbs().maxCoeff(), 0.0);
}

}  // namespace
}  // namespace dgmax
