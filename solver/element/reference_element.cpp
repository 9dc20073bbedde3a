#include "solver/element/reference_element.hpp"

#include <array>
#include <cmath>
#include <memory>
#include <mutex>
#include <string>

#include "solver/element/basis.hpp"
#include "solver/element/nodes.hpp"
#include "solver/util/error.hpp"

namespace dgmax {

namespace {

// Nodes closer than this to a face plane belong to it. The nodes lie on their faces up to
// rounding (~1e-15); the nearest off-face node is O(1/N^2) away.
constexpr double kNodeTol = 1e-8;

void check_order(int N) {
  if (N < kMinOrder || N > kMaxOrder)
    throw UserError("polynomial order " + std::to_string(N) + " is not supported", {},
                    "choose an order between " + std::to_string(kMinOrder) + " and " +
                        std::to_string(kMaxOrder));
}

}  // namespace

RefElement make_ref_element(int N) {
  check_order(N);
  RefElement e;
  e.N = N;
  e.Np = num_nodes_3d(N);
  e.Nfp = num_nodes_2d(N);
  const int Np = e.Np, Nfp = e.Nfp;

  const Eigen::MatrixXd rst = warp_blend_nodes_3d(N);  // [Np][3]
  e.r = rst.col(0);
  e.s = rst.col(1);
  e.t = rst.col(2);

  e.V = vandermonde_3d(N, e.r, e.s, e.t);
  const auto lu = e.V.partialPivLu();
  e.invV = lu.inverse();
  // Orthonormal modes: the mass matrix is the Gram matrix of the Lagrange basis,
  // l = invV^T phi  =>  M = invV^T invV.
  e.M = e.invV.transpose() * e.invV;
  e.M = 0.5 * (e.M + e.M.transpose()).eval();  // exactly symmetric

  const GradVandermonde3D g = grad_vandermonde_3d(N, e.r, e.s, e.t);
  e.Vr = g.Vr;
  e.Vs = g.Vs;
  e.Vt = g.Vt;
  // Dr = Vr V^{-1}, via a solve with V^T rather than the explicit inverse.
  const auto luT = e.V.transpose().partialPivLu();
  e.Dr = luT.solve(g.Vr.transpose()).transpose();
  e.Ds = luT.solve(g.Vs.transpose()).transpose();
  e.Dt = luT.solve(g.Vt.transpose()).transpose();

  // Face masks, ascending node index (the order the lattice gives: first face coordinate fastest).
  e.Fmask.resize(Nfp, 4);
  std::array<int, 4> count = {0, 0, 0, 0};
  for (int n = 0; n < Np; ++n) {
    const double dist[4] = {std::abs(1.0 + e.t(n)), std::abs(1.0 + e.s(n)),
                            std::abs(1.0 + e.r(n) + e.s(n) + e.t(n)), std::abs(1.0 + e.r(n))};
    for (int f = 0; f < 4; ++f)
      if (dist[f] < kNodeTol) {
        DGMAX_ASSERT(count[f] < Nfp, "too many nodes on face " + std::to_string(f));
        e.Fmask(count[f]++, f) = n;
      }
  }
  for (int f = 0; f < 4; ++f)
    DGMAX_ASSERT(count[f] == Nfp, "face " + std::to_string(f) + " has " +
                                      std::to_string(count[f]) + " nodes, expected " +
                                      std::to_string(Nfp));

  // Face mass matrices and the lift: E places each face's mass at its nodes, LIFT = M^{-1} E
  // = V V^T E (HW Lift3D).
  Eigen::MatrixXd E = Eigen::MatrixXd::Zero(Np, 4 * Nfp);  // [Np][4*Nfp]
  for (int f = 0; f < 4; ++f) {
    Eigen::VectorXd fa(Nfp), fb(Nfp);  // [Nfp] face coordinates
    for (int i = 0; i < Nfp; ++i) {
      const int n = e.Fmask(i, f);
      const double x[3] = {e.r(n), e.s(n), e.t(n)};
      fa(i) = x[kFaceCoords[f][0]];
      fb(i) = x[kFaceCoords[f][1]];
    }
    e.face_V[f] = vandermonde_2d(N, fa, fb);
    const Eigen::MatrixXd invVf = e.face_V[f].partialPivLu().inverse();
    e.face_mass[f] = invVf.transpose() * invVf;
    e.face_mass[f] = 0.5 * (e.face_mass[f] + e.face_mass[f].transpose()).eval();
    for (int i = 0; i < Nfp; ++i)
      E.row(e.Fmask(i, f)).segment(f * Nfp, Nfp) += e.face_mass[f].row(i);
  }
  e.LIFT = e.V * (e.V.transpose() * E);

  e.vertex_node[0] = 0;
  e.vertex_node[1] = N;
  e.vertex_node[2] = Nfp - 1;
  e.vertex_node[3] = Np - 1;
  return e;
}

const RefElement& ref_element(int N) {
  check_order(N);
  // One slot per order; call_once makes concurrent first uses build it exactly once. If the build
  // throws, the flag stays unset and a later call retries.
  static std::array<std::once_flag, kMaxOrder + 1> once;
  static std::array<std::unique_ptr<const RefElement>, kMaxOrder + 1> cache;
  std::call_once(once[N], [N] { cache[N] = std::make_unique<const RefElement>(make_ref_element(N)); });
  return *cache[N];
}

template <class Real>
RefElementT<Real>::RefElementT(const RefElement& e)
    : N(e.N),
      Np(e.Np),
      Nfp(e.Nfp),
      r(e.r.cast<Real>()),
      s(e.s.cast<Real>()),
      t(e.t.cast<Real>()),
      V(e.V.cast<Real>()),
      invV(e.invV.cast<Real>()),
      M(e.M.cast<Real>()),
      Dr(e.Dr.cast<Real>()),
      Ds(e.Ds.cast<Real>()),
      Dt(e.Dt.cast<Real>()),
      Fmask(e.Fmask),
      LIFT(e.LIFT.cast<Real>()) {
  for (int f = 0; f < 4; ++f) face_mass[f] = e.face_mass[f].cast<Real>();
}

template <class Real>
const RefElementT<Real>& ref_element_as(int N) {
  check_order(N);
  static std::array<std::once_flag, kMaxOrder + 1> once;
  static std::array<std::unique_ptr<const RefElementT<Real>>, kMaxOrder + 1> cache;
  std::call_once(once[N],
                 [N] { cache[N] = std::make_unique<const RefElementT<Real>>(ref_element(N)); });
  return *cache[N];
}

template struct RefElementT<float>;
template struct RefElementT<double>;
template const RefElementT<float>& ref_element_as<float>(int N);
template const RefElementT<double>& ref_element_as<double>(int N);

}  // namespace dgmax
