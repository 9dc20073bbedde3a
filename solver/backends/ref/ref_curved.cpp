// The reference backend's right-hand side on a curved element: the quadrature form of
// curved_geometry.hpp, written out plainly (the oracle the generated kernels are checked against).
#include <cmath>

#include "codegen/lower/flux_inputs.hpp"
#include "solver/backends/ref/ref_backend.hpp"
#include "solver/physics/tfsf.hpp"

namespace dgmax {

Eigen::MatrixXd RefBackend::curved_terms(int k, const Fields& q) const {
  const int Np = p_.Np(), Nfp = p_.Nfp();
  const RefElement& ref = *p_.ref;
  const MeshData& md = *p_.md;
  const CurvedFactors& cf = *p_.curved;
  const CurvedQuadrature& Q = cf.quad;
  const int c = cf.slot_of[k], Nq = Q.Nq, Nfq = Q.Nfq;
  using MatX6 = Eigen::Matrix<double, Eigen::Dynamic, 6>;
  const Eigen::Map<const MatX6> U(q.comp(k, 0), Np, 6);  // U: [Np][6]

  // volume: J ∇×H and −J ∇×E at the points, Σ_a C_a × ∂_a u, projected: B = P_N(J curl)
  const MatX6 Ur = Q.Gr * U, Us = Q.Gs * U, Ut = Q.Gt * U;  // [Nq][6]
  MatX6 curl(Nq, 6);                                         // [Nq][6]
  for (int i = 0; i < Nq; ++i) {
    Eigen::Vector3d cE = Eigen::Vector3d::Zero(), cH = Eigen::Vector3d::Zero();
    const MatX6* D[3] = {&Ur, &Us, &Ut};
    for (int a = 0; a < 3; ++a) {
      Eigen::Vector3d C;
      for (int e = 0; e < 3; ++e) C(e) = cf.Cq[(static_cast<size_t>(c) * 9 + 3 * a + e) * Nq + i];
      const Eigen::Vector3d dE = D[a]->row(i).head<3>().transpose(), dH = D[a]->row(i).tail<3>().transpose();
      cH += C.cross(dH);
      cE += C.cross(dE);
    }
    curl.row(i) << cH.transpose(), -cE.transpose();
  }
  MatX6 B = Q.Pq * curl;  // [Np][6]

  // faces: the flux at the face points, weighted by w·|n sJ|, into the face nodes' integrals S
  const Material& mm = p_.material[k];
  const FluxSet& fx = *p_.fluxes;
  std::vector<double> scratch(std::max(fx.flux.dag.nodes().size(), max_exterior_nodes_));
  MatX6 S = MatX6::Zero(Np, 6);  // [Np][6] ∮ l_i (∓flux) sJ
  const size_t n_inc = inc_slot_.size();
  for (int f = 0; f < 4; ++f) {
    const bool boundary = md.conn.is_boundary(k, f);
    const Material& mp = boundary ? mm : p_.material[md.conn.EToE[k][f]];
    const int sign = tfsf_sign(k, f);
    // traces at this face's nodes: interior, exterior (interior ones on a boundary), incident
    MatX6 uM(Nfp, 6), uP(Nfp, 6), inc = MatX6::Zero(Nfp, 6);
    for (int j = 0; j < Nfp; ++j) {
      const int slot = (k * 4 + f) * Nfp + j;
      const int iM = p_.maps.vmapM[slot] - k * Np;
      uM.row(j) = U.row(iM);
      if (const int m = inc_of_slot_[slot]; m >= 0)
        for (int x = 0; x < 6; ++x) inc(j, x) = inc_[x * n_inc + m];
      if (boundary) {
        uP.row(j) = U.row(iM);
      } else {
        const int nodeP = p_.maps.vmapP[slot];
        for (int x = 0; x < 6; ++x) uP(j, x) = q(nodeP / Np, x, nodeP % Np) + sign * inc(j, x);
      }
    }
    const int p = cf.ranking[static_cast<size_t>(c) * 4 + f];
    const Eigen::MatrixXd& If = Q.If[f][p];  // [Nfq][Nfp]
    const MatX6 qM = If * uM, qP = If * uP, qinc = If * inc;
    MatX6 G(Nfq, 6);  // [Nfq][6] weighted fluxes
    for (int i = 0; i < Nfq; ++i) {
      const double* nsJ = &cf.nsJq[((static_cast<size_t>(c) * 4 + f) * Nfq + i) * 3];
      const double sJ = std::sqrt(nsJ[0] * nsJ[0] + nsJ[1] * nsJ[1] + nsJ[2] * nsJ[2]);
      double in[codegen::kNumFluxInputs] = {};
      for (int x = 0; x < 3; ++x) in[codegen::kNormal + x] = nsJ[x] / sJ;
      material_inputs(in, mm, mp);
      for (int x = 0; x < 6; ++x) {
        in[codegen::kEint + x] = qM(i, x);
        in[codegen::kEext + x] = qP(i, x);
      }
      if (boundary) {
        for (int x = 0; x < 6; ++x) in[codegen::kEinc + x] = qinc(i, x);
        double ext[6];
        codegen::evaluate(fx.exterior[static_cast<int>(p_.bc[k][f])].dag, in, ext, scratch.data());
        for (int x = 0; x < 6; ++x) in[codegen::kEext + x] = ext[x];
      }
      double out[6];
      codegen::evaluate(fx.flux.dag, in, out, scratch.data());
      const double ws = Q.wf(i) * sJ;
      G.row(i) << -ws * out[0], -ws * out[1], -ws * out[2], ws * out[3], ws * out[4], ws * out[5];
    }
    const MatX6 Sf = If.transpose() * G;  // [Nfp][6]
    for (int j = 0; j < Nfp; ++j) S.row(ref.Fmask(j, f)) += Sf.row(j);
  }
  B += Q.Minv * S;

  // the weight-adjusted inverse of the curved mass matrix: P_N((1/J) B)
  MatX6 Bq = Q.Vq * B;  // [Nq][6]
  for (int i = 0; i < Nq; ++i) Bq.row(i) /= cf.Jq[static_cast<size_t>(c) * Nq + i];
  return Q.Pq * Bq;
}

}  // namespace dgmax
