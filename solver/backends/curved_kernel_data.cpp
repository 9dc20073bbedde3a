#include "solver/backends/curved_kernel_data.hpp"

#include <cmath>

#include "codegen/emit/curved_kernels.hpp"
#include "solver/mesh/curved_geometry.hpp"
#include "solver/mesh/curved_operators.hpp"
#include "solver/physics/tfsf.hpp"

namespace dgmax {

namespace {
// Slots of the owned curved elements: ghosts are never computed here.
std::vector<int> owned_slots(const Problem& p) {
  std::vector<int> out;
  if (!p.curved) return out;
  const int K = p.K_owned();
  for (int c = 0; c < p.curved->count(); ++c)
    if (p.curved->elements[c] < K) out.push_back(c);
  return out;
}

template <class Real>
void put(std::vector<Real>& out, size_t offset, const Eigen::MatrixXd& m) {  // row-major
  for (int i = 0; i < m.rows(); ++i)
    for (int j = 0; j < m.cols(); ++j) out[offset + i * m.cols() + j] = static_cast<Real>(m(i, j));
}
}  // namespace

void set_curved_sizes(const Problem& p, codegen::KernelSpec& spec) {
  spec.curved_Nq = spec.curved_Nfq = 0;
  if (owned_slots(p).empty()) return;
  spec.curved_Nq = p.curved->quad.Nq;
  spec.curved_Nfq = p.curved->quad.Nfq;
}

template <class Real>
CurvedKernelData<Real> make_curved_kernel_data(const Problem& p) {
  CurvedKernelData<Real> d;
  const std::vector<int> slots = owned_slots(p);
  if (slots.empty()) return d;
  const CurvedFactors& cf = *p.curved;
  const CurvedQuadrature& Q = cf.quad;
  const codegen::CurvedLayout L{p.Np(), p.Nfp(), Q.Nq, Q.Nfq};
  const int Np = p.Np(), Nq = Q.Nq, Nfq = Q.Nfq, G = L.geo_stride();
  d.count = static_cast<int>(slots.size());
  d.cinfo.resize(static_cast<size_t>(d.count) * codegen::kCurvedInfo);
  d.cgeo.resize(static_cast<size_t>(d.count) * G);
  d.cx.resize(static_cast<size_t>(d.count) * Np * 3);
  for (int s = 0; s < d.count; ++s) {
    const int c = slots[s], k = cf.elements[c];
    int* info = &d.cinfo[static_cast<size_t>(s) * codegen::kCurvedInfo];
    info[0] = k;
    for (int f = 0; f < 4; ++f) info[1 + f] = cf.ranking[static_cast<size_t>(c) * 4 + f];
    if (p.tfsf)  // a curved element beside a flat face of the TF/SF box
      if (const int e = p.tfsf->index_of[k]; e >= 0)
        for (int f = 0; f < 4; ++f) info[5 + f] = p.tfsf->sign[static_cast<size_t>(e) * 4 + f];
    Real* g = &d.cgeo[static_cast<size_t>(s) * G];
    for (int i = 0; i < Nq; ++i) g[L.geo_j() + i] = static_cast<Real>(cf.Jq[static_cast<size_t>(c) * Nq + i]);
    for (int f = 0; f < 4; ++f)
      for (int i = 0; i < Nfq; ++i) {
        const double* nsJ = &cf.nsJq[((static_cast<size_t>(c) * 4 + f) * Nfq + i) * 3];
        const double sJ = std::sqrt(nsJ[0] * nsJ[0] + nsJ[1] * nsJ[1] + nsJ[2] * nsJ[2]);
        Real* fq = g + L.geo_faces() + (f * Nfq + i) * 4;
        for (int x = 0; x < 3; ++x) fq[x] = static_cast<Real>(nsJ[x] / sJ);
        fq[3] = static_cast<Real>(Q.wf(i) * sJ);
      }
    for (int i = 0; i < Np; ++i) {
      const size_t n = static_cast<size_t>(k) * Np + i;
      double* x = &d.cx[(static_cast<size_t>(s) * Np + i) * 3];
      x[0] = p.xyz.x[n], x[1] = p.xyz.y[n], x[2] = p.xyz.z[n];
    }
  }
  d.cops.resize(L.op_size());
  for (int i = 0; i < Nq; ++i) d.cops[L.op_w() + i] = static_cast<Real>(Q.w(i));
  for (int f = 0; f < 4; ++f)
    for (int r = 0; r < 6; ++r) put(d.cops, L.op_if() + (f * 6 + r) * Nfq * p.Nfp(), Q.If[f][r]);
  put(d.cops, L.op_vqt(), Eigen::MatrixXd(Q.Vq.transpose()));
  d.cmat.resize(static_cast<size_t>(d.count) * L.cmat_stride());
#pragma omp parallel for schedule(dynamic, 16)
  for (int s = 0; s < d.count; ++s) {
    const CurvedOperators A = curved_operators(cf, slots[s]);
    const Eigen::MatrixXd* m[4] = {&A.curl[0], &A.curl[1], &A.curl[2], &A.lift};
    for (int n = 0; n < 4; ++n)  // transposed: entry (i, j) at j * Np + i
      put(d.cmat, static_cast<size_t>(s) * L.cmat_stride() + static_cast<size_t>(n) * Np * Np,
          Eigen::MatrixXd(m[n]->transpose()));
  }
  return d;
}

template CurvedKernelData<double> make_curved_kernel_data<double>(const Problem&);
template CurvedKernelData<float> make_curved_kernel_data<float>(const Problem&);

}  // namespace dgmax
