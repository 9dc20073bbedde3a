#include "solver/mesh/curved_geometry.hpp"

#include <algorithm>
#include <cmath>

#include "solver/element/basis.hpp"
#include "solver/mesh/curved_lattice.hpp"
#include "solver/mesh/curved_mesh.hpp"
#include "solver/util/error.hpp"
#include "solver/util/strings.hpp"

namespace dgmax {

namespace {

// rank[m] of face vertex m for ranking index p (the inverse of face_ranking)
std::array<int, 3> ranks_of(int p) {
  std::array<int, 3> rank{};
  rank[0] = p / 2;
  const int lo = rank[0] == 0 ? 1 : 0, hi = rank[0] == 2 ? 1 : 2;
  rank[1] = p % 2 == 0 ? lo : hi;
  rank[2] = p % 2 == 0 ? hi : lo;
  return rank;
}

// Barycentric weights mu[m] of face vertex m at canonical face point i for ranking p.
std::array<double, 3> face_weights(const SimplexRule& rule, int i, int p) {
  const double lambda[3] = {-(rule.r(i) + rule.s(i)) / 2, (1 + rule.r(i)) / 2, (1 + rule.s(i)) / 2};
  const std::array<int, 3> rank = ranks_of(p);
  return {lambda[rank[0]], lambda[rank[1]], lambda[rank[2]]};
}

// The volume rule's degree: the skew identity's 2N + 2q − 3 (C_a · ∂_a(H × E), with C_a of degree
// 2q − 2), and at least 2N, so the mass matrix is exact and P_N projects (the form is then the
// straight-sided one on affine maps). ∫ J u v (degree 2N + 3q − 3) is not needed exactly: the
// weight-adjusted inverse is stable with any positive rule (bench/NOTES.md, "2026-12-06 — The
// curved volume rule of the skew identity's degree").
int volume_degree(int N, int q) { return std::max(2 * N, 2 * N + 2 * q - 3); }

CurvedQuadrature make_quadrature(const RefElement& ref, int q) {
  CurvedQuadrature cq;
  const int N = ref.N;
  const SimplexRule vol = tetrahedron_rule(volume_degree(N, q));
  cq.Nq = static_cast<int>(vol.w.size());
  cq.w = vol.w;
  cq.Vq = vandermonde_3d(N, vol.r, vol.s, vol.t) * ref.invV;
  const GradVandermonde3D G = grad_vandermonde_3d(N, vol.r, vol.s, vol.t);
  cq.Gr = G.Vr * ref.invV;
  cq.Gs = G.Vs * ref.invV;
  cq.Gt = G.Vt * ref.invV;
  cq.Minv = ref.V * ref.V.transpose();
  cq.Pq = cq.Minv * cq.Vq.transpose() * vol.w.asDiagonal();
  cq.face_rule = triangle_rule(2 * N + 2 * q - 2);
  cq.Nfq = static_cast<int>(cq.face_rule.w.size());
  cq.wf = cq.face_rule.w;
  for (int f = 0; f < 4; ++f)
    for (int p = 0; p < 6; ++p) {
      Eigen::VectorXd r2(cq.Nfq), s2(cq.Nfq);
      for (int i = 0; i < cq.Nfq; ++i) {
        const auto mu = face_weights(cq.face_rule, i, p);
        r2(i) = -1 + 2 * mu[1];
        s2(i) = -1 + 2 * mu[2];
      }
      cq.If[f][p] = vandermonde_2d(N, r2, s2) * ref.face_V[f].inverse();
    }
  return cq;
}
}  // namespace

std::array<int, 2> curved_rule_points(int N, int q) {
  return {static_cast<int>(tetrahedron_rule(volume_degree(N, q)).w.size()),
          static_cast<int>(triangle_rule(2 * N + 2 * q - 2).w.size())};
}

int face_ranking(const std::array<int, 3>& g) {
  std::array<int, 3> rank{};
  for (int m = 0; m < 3; ++m)
    for (int o = 0; o < 3; ++o) rank[m] += g[o] < g[m];
  return rank[0] * 2 + (rank[1] > rank[2] ? 1 : 0);
}

Eigen::MatrixXd curved_interpolation(const Mesh& mesh, const RefElement& ref) {
  return lattice_interpolation(mesh.geometry_order, ref.r, ref.s, ref.t);
}

Eigen::Matrix<double, Eigen::Dynamic, 3> curved_node_positions(const Mesh& mesh, int k, const Eigen::MatrixXd& L) {
  const Eigen::Matrix<double, Eigen::Dynamic, 3> P = lattice_positions(mesh, k);  // [Nq][3]
  return L * P;
}

namespace {
// The quadrature form's per-element parts: cofactors and J at the volume points, each face's
// ranking and n·sJ at its points.
void curved_quadrature_factors(const Mesh& mesh, const RefElement& ref, CurvedFactors& cf) {
  const int q = mesh.geometry_order, Kc = cf.count();
  cf.quad = make_quadrature(ref, q);
  const CurvedQuadrature& Q = cf.quad;
  const int Nq = Q.Nq, Nfq = Q.Nfq;
  cf.Cq.assign(static_cast<size_t>(Kc) * 9 * Nq, 0.0);
  cf.Jq.assign(static_cast<size_t>(Kc) * Nq, 0.0);
  cf.ranking.assign(static_cast<size_t>(Kc) * 4, 0);
  cf.nsJq.assign(static_cast<size_t>(Kc) * 4 * Nfq * 3, 0.0);
  // the map's derivatives at the volume points, and at each face's points for every ranking
  const SimplexRule vol = tetrahedron_rule(volume_degree(ref.N, q));
  Eigen::MatrixXd Lr, Ls, Lt;
  lattice_gradient(q, vol.r, vol.s, vol.t, Lr, Ls, Lt);
  Eigen::MatrixXd Fr[4][6], Fs[4][6], Ft[4][6];
  for (int f = 0; f < 4; ++f)
    for (int p = 0; p < 6; ++p) {
      std::vector<std::array<double, 3>> mu(Nfq);
      for (int i = 0; i < Nfq; ++i) mu[i] = face_weights(Q.face_rule, i, p);
      Eigen::VectorXd r, s, t;
      face_points(f, mu, r, s, t);
      lattice_gradient(q, r, s, t, Fr[f][p], Fs[f][p], Ft[f][p]);
    }
#pragma omp parallel for schedule(static)
  for (int c = 0; c < Kc; ++c) {
    const int k = cf.elements[c];
    const Eigen::Matrix<double, Eigen::Dynamic, 3> P = lattice_positions(mesh, k);  // [Nq][3]
    const Eigen::Matrix<double, Eigen::Dynamic, 3> Xr = Lr * P, Xs = Ls * P, Xt = Lt * P;
    for (int i = 0; i < Nq; ++i) {
      const auto C = cofactor_rows(Xr.row(i).transpose(), Xs.row(i).transpose(), Xt.row(i).transpose());
      for (int a = 0; a < 3; ++a)
        for (int e = 0; e < 3; ++e) cf.Cq[(static_cast<size_t>(c) * 9 + 3 * a + e) * Nq + i] = C[a](e);
      cf.Jq[static_cast<size_t>(c) * Nq + i] = Xr.row(i).dot(Xs.row(i).cross(Xt.row(i)));
    }
    for (int f = 0; f < 4; ++f) {
      const auto& e = mesh.elements[k];
      const int p = face_ranking({e[kFaceVertices[f][0]], e[kFaceVertices[f][1]], e[kFaceVertices[f][2]]});
      cf.ranking[static_cast<size_t>(c) * 4 + f] = p;
      const Eigen::Matrix<double, Eigen::Dynamic, 3> Yr = Fr[f][p] * P, Ys = Fs[f][p] * P, Yt = Ft[f][p] * P;
      for (int i = 0; i < Nfq; ++i) {
        const Eigen::Vector3d nsJ =
            face_normal_times_sJ(f, cofactor_rows(Yr.row(i).transpose(), Ys.row(i).transpose(), Yt.row(i).transpose()));
        for (int d = 0; d < 3; ++d) cf.nsJq[((static_cast<size_t>(c) * 4 + f) * Nfq + i) * 3 + d] = nsJ(d);
      }
    }
  }
}
}  // namespace

CurvedFactors compute_curved_factors(const Mesh& mesh, const RefElement& ref) {
  CurvedFactors cf;
  const int K = mesh.num_elements(), Np = ref.Np, Nfp = ref.Nfp;
  cf.Np = Np;
  cf.Nfp = Nfp;
  if (mesh.curved_index.empty()) return cf;
  cf.slot_of.assign(K, -1);
  for (int k = 0; k < K; ++k)
    if (mesh.is_curved(k)) {
      cf.slot_of[k] = cf.count();
      cf.elements.push_back(k);
    }
  const int Kc = cf.count();
  cf.drdx.assign(static_cast<size_t>(Kc) * 9 * Np, 0.0);
  cf.J.assign(static_cast<size_t>(Kc) * Np, 0.0);
  cf.normal.assign(static_cast<size_t>(Kc) * 4 * Nfp * 3, 0.0);
  cf.sJ.assign(static_cast<size_t>(Kc) * 4 * Nfp, 0.0);
  const int q = mesh.geometry_order;
  const Eigen::MatrixXd L = curved_interpolation(mesh, ref);  // [Np][Nq]
  int bad = Kc, bad_node = -1;
#pragma omp parallel for schedule(static) reduction(min : bad)
  for (int c = 0; c < Kc; ++c) {
    const int k = cf.elements[c];
    const Eigen::Matrix<double, Eigen::Dynamic, 3> X = curved_node_positions(mesh, k, L);  // X: [Np][3]
    const Eigen::Matrix<double, Eigen::Dynamic, 3> Xr = ref.Dr * X, Xs = ref.Ds * X, Xt = ref.Dt * X;
    double* g = &cf.drdx[static_cast<size_t>(c) * 9 * Np];
    for (int i = 0; i < Np; ++i) {
      const Eigen::Vector3d a = Xr.row(i), b = Xs.row(i), d = Xt.row(i);  // columns of dx/dr
      const double J = a.dot(b.cross(d));
      if (!(J > 0)) {
        bad = std::min(bad, c);
        continue;
      }
      // rows of the inverse: grad r = (x_s × x_t) / J, grad s = (x_t × x_r) / J, grad t = (x_r × x_s) / J
      const Eigen::Vector3d gr = b.cross(d) / J, gs = d.cross(a) / J, gt = a.cross(b) / J;
      for (int e = 0; e < 3; ++e) {
        g[(0 + e) * Np + i] = gr(e);
        g[(3 + e) * Np + i] = gs(e);
        g[(6 + e) * Np + i] = gt(e);
      }
      cf.J[static_cast<size_t>(c) * Np + i] = J;
    }
    for (int f = 0; f < 4; ++f)
      for (int j = 0; j < Nfp; ++j) {
        const int i = ref.Fmask(j, f);
        const size_t n = (static_cast<size_t>(c) * 4 + f) * Nfp + j;
        double v[3];
        for (int e = 0; e < 3; ++e)
          v[e] = kFaceGradient[f][0] * g[e * Np + i] + kFaceGradient[f][1] * g[(3 + e) * Np + i] +
                 kFaceGradient[f][2] * g[(6 + e) * Np + i];
        const double len = std::sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
        for (int e = 0; e < 3; ++e) cf.normal[3 * n + e] = len > 0 ? v[e] / len : 0.0;
        cf.sJ[n] = len * cf.J[static_cast<size_t>(c) * Np + i];
      }
  }
  curved_quadrature_factors(mesh, ref, cf);
  for (int c = 0; c < Kc && bad == Kc; ++c)  // the quadrature points too (1/J is taken there)
    for (int i = 0; i < cf.quad.Nq; ++i)
      if (!(cf.Jq[static_cast<size_t>(c) * cf.quad.Nq + i] > 0)) bad = c;
  if (bad < Kc) {
    const int k = cf.elements[bad];
    const Eigen::Matrix<double, Eigen::Dynamic, 3> X = curved_node_positions(mesh, k, L);
    for (int i = 0; i < Np && bad_node < 0; ++i)
      if (!(cf.J[static_cast<size_t>(bad) * Np + i] > 0)) bad_node = i;
    if (bad_node < 0) bad_node = 0;  // (at a quadrature point: the element named, its first node located)
    throw UserError("mesh '" + mesh.source + "': curved element " + std::to_string(k) + " has a Jacobian that is not positive at (" +
                        fmt_g(X(bad_node, 0)) + ", " + fmt_g(X(bad_node, 1)) + ", " + fmt_g(X(bad_node, 2)) +
                        ") with its geometry (order " + std::to_string(q) + ") interpolated at the order-" +
                        std::to_string(ref.N) + " nodes",
                    {mesh.source}, "use a geometry order at most the discretization order, or re-mesh this region");
  }
  return cf;
}

}  // namespace dgmax
