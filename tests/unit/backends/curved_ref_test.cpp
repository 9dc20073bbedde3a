// The reference backend on curved elements (a box warped inside, its faces kept: curved_box.hpp):
// the quadrature form of curved_geometry.hpp keeps free streams, reduces to the straight-sided
// scheme on affine maps, conserves (central) or dissipates (upwind) the energy in its
// weight-adjusted norm, and converges at order N + 1 against the box's exact cavity mode.
#include <gtest/gtest.h>

#include <cmath>
#include <iostream>
#include <random>

#include "cavity.hpp"
#include "curved_box.hpp"
#include "solver/mesh/curved_lattice.hpp"

using namespace dgmax;
using namespace dgmax::test;

namespace {
FieldFn constant_field() {
  return [](size_t n, const double*, const double*, const double*, double, double* const* out) {
    const double c[6] = {0.3, -1.2, 0.7, 2.0, 0.1, -0.4};
    for (int m = 0; m < 6; ++m)
      for (size_t i = 0; i < n; ++i) out[m][i] = c[m];
  };
}

// ½ Σ_k eps E^T M̃ E + mu H^T M̃ H with M̃ = M M_{1/J}^{-1} M on curved elements (the weight-
// adjusted mass matrix the scheme is stable in) and J M on straight-sided ones.
class WeightAdjustedEnergy {
 public:
  explicit WeightAdjustedEnergy(const Problem& p) : p_(p) {
    const Eigen::MatrixXd& M = p.ref->M;
    for (int k = 0; k < p.K(); ++k) {
      if (!p.is_curved(k)) {
        mass_.push_back(p.md->geom.J[k] * M);
        continue;
      }
      const CurvedQuadrature& Q = p.curved->quad;
      const int c = p.curved->slot_of[k];
      Eigen::VectorXd wj(Q.Nq);
      for (int i = 0; i < Q.Nq; ++i) wj(i) = Q.w(i) / p.curved->Jq[static_cast<size_t>(c) * Q.Nq + i];
      const Eigen::MatrixXd M_invJ = Q.Vq.transpose() * wj.asDiagonal() * Q.Vq;
      mass_.push_back(M * M_invJ.llt().solve(M));
    }
  }
  double operator()(const Fields& q) const {
    double W = 0;
    for (int k = 0; k < p_.K(); ++k)
      for (int c = 0; c < 6; ++c) {
        const Eigen::Map<const Eigen::VectorXd> v(q.comp(k, c), p_.Np());
        W += 0.5 * (c < 3 ? p_.material[k].eps : p_.material[k].mu) * v.dot(mass_[k] * v);
      }
    return W;
  }

 private:
  const Problem& p_;
  std::vector<Eigen::MatrixXd> mass_;  // [K] of [Np][Np]
};
}  // namespace

TEST(CurvedRef, ConstantFieldIsAFreeStream) {
  // periodic in every direction: a constant field is an exact steady state
  for (int q = 2; q <= 4; ++q) {
    BoxSpec spec;
    spec.cells = {2, 2, 2};
    spec.periodic = {true, true, true};
    for (double alpha : {0.0, 1.0}) {
      Problem p = warped_box_problem(spec, std::max(q, 3), q, 0.12, alpha);
      ASSERT_TRUE(p.curved && p.curved->count() == p.K());
      RefBackend be(p);
      Fields q0, r;
      interpolate(p, constant_field(), 0, q0);
      be.rhs(q0, 0.0, r);
      double worst = 0;
      for (double v : r.q) worst = std::max(worst, std::abs(v));
      EXPECT_LT(worst, 1e-11) << "q = " << q << ", alpha = " << alpha;
    }
  }
}

TEST(CurvedRef, AffineMapsGiveTheStraightSidedRightHandSide) {
  // the curved form on elements whose maps are affine (their lattices on the straight elements)
  BoxSpec spec;
  spec.cells = {2, 2, 1};
  for (int q : {1, 2, 3}) {
    MeshData md = setup_mesh(make_box_mesh(spec));
    const auto straight = std::make_shared<const MeshData>(md);
    Mesh& mesh = md.mesh;
    const int nq = lattice_size(q);
    Eigen::VectorXd r, s, t;
    lattice_reference_points(q, r, s, t);
    mesh.geometry_order = q;
    mesh.curved_index.resize(mesh.num_elements());
    for (int k = 0; k < mesh.num_elements(); ++k) {
      mesh.curved_index[k] = k;
      for (int m = 0; m < nq; ++m) mesh.curved_points.push_back(map_to_physical(mesh, k, r(m), s(m), t(m)));
    }
    Problem pa = make_problem(straight, 3), pc = make_problem(std::make_shared<const MeshData>(md), 3);
    ASSERT_TRUE(pc.curved && pc.curved->count() == pc.K());
    Fields u(pa.K(), pa.Np()), ra, rc;
    std::mt19937 rng(7);
    std::uniform_real_distribution<double> dist(-1, 1);
    for (double& v : u.q) v = dist(rng);
    RefBackend(pa).rhs(u, 0.0, ra);
    RefBackend(pc).rhs(u, 0.0, rc);
    double worst = 0, scale = 0;
    for (size_t i = 0; i < ra.q.size(); ++i) {
      worst = std::max(worst, std::abs(ra.q[i] - rc.q[i]));
      scale = std::max(scale, std::abs(ra.q[i]));
    }
    EXPECT_LT(worst, 1e-11 * scale) << "q = " << q;
  }
}

TEST(CurvedRef, UpwindEnergyNeverIncreases) {
  BoxSpec spec;
  spec.cells = {2, 2, 2};
  Problem p = warped_box_problem(spec, 3, 3, 0.1, 1.0);
  const WeightAdjustedEnergy energy(p);
  Fields q0;
  interpolate(p, cavity_mode(), 0, q0);
  double prev = energy(q0);
  const double W0 = prev;
  int increases = 0;
  simulate(p, cavity_mode(), 4.0, 0.5, [&](long long, double, const Fields& q) {
    const double W = energy(q);
    if (W > prev * (1 + 1e-13)) ++increases;
    prev = W;
  });
  EXPECT_EQ(increases, 0);
  EXPECT_LT(prev, W0);
}

TEST(CurvedRef, CentralFluxConservesEnergyToTheIntegratorsLevel) {
  BoxSpec spec;
  spec.cells = {2, 2, 2};
  Problem p = warped_box_problem(spec, 3, 3, 0.1, 0.0);
  const WeightAdjustedEnergy energy(p);
  auto max_drift = [&](double cfl) {
    RefBackend be(p);
    Fields q;
    interpolate(p, cavity_mode(), 0, q);
    const double W0 = energy(q);
    be.set_state(q);
    const double dt = stable_dt(p, cfl);
    const int steps = static_cast<int>(std::ceil(1.0 / dt));
    double worst = 0;
    for (int step = 0; step < steps; ++step) {
      be.step(step * dt, dt);
      be.get_state(q);
      worst = std::max(worst, std::abs(energy(q) - W0) / W0);
    }
    return worst;
  };
  const double d1 = max_drift(0.3), d2 = max_drift(0.15);
  std::cout << "curved, central flux: max relative energy drift to t = 1: " << d1 << " (cfl 0.3), " << d2
            << " (cfl 0.15)\n";
  EXPECT_LT(d1, 1e-6);
  EXPECT_LT(d2, d1 / 16);  // LSERK4's own dissipation: fourth order or better in dt
}

TEST(CurvedRef, CavityModeErrorFallsAtOrderNPlusHalf) {
  std::printf("\n  N  q   L2 error 2^3 cells   4^3 cells   order\n");
  for (int N = 2; N <= 3; ++N) {
    double e[2];
    for (int i = 0; i < 2; ++i) {
      Problem p = warped_box_problem(unit_box(2 << i), N, N, 0.1, 1.0);
      const auto r = simulate(p, cavity_mode(), 0.25, 0.25);
      const ErrorNorms en = error_norms(p, r.q, cavity_mode(), 0.25);
      e[i] = std::hypot(en.L2_E, en.L2_H);
    }
    const double order = std::log2(e[0] / e[1]);
    std::printf("  %d  %d   %.4e           %.4e  %.2f\n", N, N, e[0], e[1], order);
    EXPECT_GE(order, N + 0.5) << "N = " << N;
  }
}
