#include "solver/mesh/curved_geometry.hpp"

#include <cmath>

#include "solver/mesh/curved_lattice.hpp"
#include "solver/util/error.hpp"
#include "solver/util/strings.hpp"

namespace dgmax {

namespace {
// Reference outward normal (unnormalised) of each face in terms of grad r, grad s, grad t:
// face 0: -grad t, face 1: -grad s, face 2: grad r + grad s + grad t, face 3: -grad r.
constexpr double kFaceGrad[4][3] = {{0, 0, -1}, {0, -1, 0}, {1, 1, 1}, {-1, 0, 0}};
}  // namespace

Eigen::MatrixXd curved_interpolation(const Mesh& mesh, const RefElement& ref) {
  return lattice_interpolation(mesh.geometry_order, ref.r, ref.s, ref.t);
}

Eigen::Matrix<double, Eigen::Dynamic, 3> curved_node_positions(const Mesh& mesh, int k, const Eigen::MatrixXd& L) {
  const int nq = lattice_size(mesh.geometry_order);
  Eigen::Matrix<double, Eigen::Dynamic, 3> P(nq, 3);                         // P: [Nq][3]
  const Vec3* row = mesh.curved_row(k);
  for (int m = 0; m < nq; ++m) P.row(m) << row[m][0], row[m][1], row[m][2];
  return L * P;
}

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
          v[e] = kFaceGrad[f][0] * g[e * Np + i] + kFaceGrad[f][1] * g[(3 + e) * Np + i] +
                 kFaceGrad[f][2] * g[(6 + e) * Np + i];
        const double len = std::sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
        for (int e = 0; e < 3; ++e) cf.normal[3 * n + e] = len > 0 ? v[e] / len : 0.0;
        cf.sJ[n] = len * cf.J[static_cast<size_t>(c) * Np + i];
      }
  }
  if (bad < Kc) {
    const int k = cf.elements[bad];
    const Eigen::Matrix<double, Eigen::Dynamic, 3> X = curved_node_positions(mesh, k, L);
    for (int i = 0; i < Np && bad_node < 0; ++i)
      if (!(cf.J[static_cast<size_t>(bad) * Np + i] > 0)) bad_node = i;
    throw UserError("mesh '" + mesh.source + "': curved element " + std::to_string(k) + " has a Jacobian that is not positive at (" +
                        fmt_g(X(bad_node, 0)) + ", " + fmt_g(X(bad_node, 1)) + ", " + fmt_g(X(bad_node, 2)) +
                        ") with its geometry (order " + std::to_string(q) + ") interpolated at the order-" +
                        std::to_string(ref.N) + " nodes",
                    {mesh.source}, "use a geometry order at most the discretization order, or re-mesh this region");
  }
  return cf;
}

}  // namespace dgmax
