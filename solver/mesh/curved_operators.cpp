#include "solver/mesh/curved_operators.hpp"

namespace dgmax {

CurvedOperators curved_operators(const CurvedFactors& cf, int c) {
  const CurvedQuadrature& Q = cf.quad;
  const int Nq = Q.Nq;
  const size_t cq = static_cast<size_t>(c);
  const Eigen::Map<const Eigen::VectorXd> J(&cf.Jq[cq * Nq], Nq);
  const Eigen::MatrixXd W = Q.Pq * J.cwiseInverse().asDiagonal() * Q.Vq;  // [Np][Np]
  const Eigen::MatrixXd* G[3] = {&Q.Gr, &Q.Gs, &Q.Gt};
  CurvedOperators out;
  for (int b = 0; b < 3; ++b) {
    Eigen::MatrixXd CG = Eigen::MatrixXd::Zero(Nq, Q.Vq.cols());  // [Nq][Np] Σ_a diag(C_a^b) G_a
    for (int a = 0; a < 3; ++a) {
      const Eigen::Map<const Eigen::VectorXd> C(&cf.Cq[(cq * 9 + 3 * a + b) * Nq], Nq);
      CG.noalias() += C.asDiagonal() * *G[a];
    }
    out.curl[b] = W * (Q.Pq * CG);
  }
  out.lift = W * Q.Minv;
  return out;
}

}  // namespace dgmax
