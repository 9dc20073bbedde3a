#include "solver/backends/kernel_data.hpp"

#include "codegen/emit/kernel_spec.hpp"

namespace dgmax {

template <class Real>
KernelData<Real> make_kernel_data(const Problem& p) {
  using namespace codegen;
  const int K = p.K(), Nfp = p.Nfp();
  const MeshData& md = *p.md;
  KernelData<Real> d;
  d.geo.assign(static_cast<size_t>(K) * kGeoStride, Real(0));
  d.mat.assign(static_cast<size_t>(K) * kMatStride, Real(0));
  d.etoe.resize(4 * static_cast<size_t>(K));
  d.bc.resize(d.etoe.size());
  d.inc_offset.assign(d.etoe.size(), -1);
  d.vmapP.assign(p.maps.vmapP.begin(), p.maps.vmapP.end());
  for (int k = 0; k < K; ++k) {
    Real* g = &d.geo[static_cast<size_t>(k) * kGeoStride];
    for (int i = 0; i < 9; ++i) g[kGeoDrdx + i] = static_cast<Real>(md.geom.drdx[k][i]);
    for (int f = 0; f < 4; ++f) {
      g[kGeoFscale + f] = static_cast<Real>(md.geom.Fscale[k][f]);
      for (int x = 0; x < 3; ++x) g[kGeoNormal + 3 * f + x] = static_cast<Real>(md.geom.normal[k][f][x]);
      const bool boundary = md.conn.is_boundary(k, f);
      d.etoe[4 * k + f] = md.conn.EToE[k][f];
      d.bc[4 * k + f] = boundary ? static_cast<int>(p.bc[k][f]) : -1;
      if (boundary && p.fluxes->exterior_reads_incident[static_cast<int>(p.bc[k][f])]) {
        d.inc_offset[4 * k + f] = static_cast<int>(d.inc_x.size());
        for (int j = 0; j < Nfp; ++j) {
          const int node = p.maps.vmapM[(static_cast<size_t>(k) * 4 + f) * Nfp + j];
          d.inc_x.push_back(p.xyz.x[node]);
          d.inc_y.push_back(p.xyz.y[node]);
          d.inc_z.push_back(p.xyz.z[node]);
        }
      }
    }
    const Material& m = p.material[k];
    Real* mk = &d.mat[static_cast<size_t>(k) * kMatStride];
    mk[kMatEps] = static_cast<Real>(m.eps);
    mk[kMatMu] = static_cast<Real>(m.mu);
    mk[kMatZ] = static_cast<Real>(m.Z());
    mk[kMatY] = static_cast<Real>(1 / m.Z());
    mk[kMatInvEps] = static_cast<Real>(1 / m.eps);
    mk[kMatInvMu] = static_cast<Real>(1 / m.mu);
    mk[kMatSigmaOverEps] = static_cast<Real>(m.sigma / m.eps);
  }
  return d;
}

template <class Real>
void eval_incident(const Problem& p, const KernelData<Real>& d, double t, Real* out) {
  const size_t n = d.n_inc();
  if (n == 0) return;
  std::vector<double> buf(6 * n);
  double* cols[6];
  for (int c = 0; c < 6; ++c) cols[c] = buf.data() + c * n;
  p.incident(n, d.inc_x.data(), d.inc_y.data(), d.inc_z.data(), t, cols);
  for (size_t i = 0; i < n; ++i)
    for (int c = 0; c < 6; ++c) out[6 * i + c] = static_cast<Real>(cols[c][i]);
}

template <class Real>
void eval_current(const Problem& p, double t, Real* out) {
  const size_t n = static_cast<size_t>(p.K()) * p.Np();
  std::vector<double> buf(3 * n);
  double* cols[3] = {buf.data(), buf.data() + n, buf.data() + 2 * n};
  p.current(n, p.xyz.x.data(), p.xyz.y.data(), p.xyz.z.data(), t, cols);
  for (size_t i = 0; i < 3 * n; ++i) out[i] = static_cast<Real>(buf[i]);
}

template struct KernelData<float>;
template struct KernelData<double>;
template KernelData<float> make_kernel_data<float>(const Problem&);
template KernelData<double> make_kernel_data<double>(const Problem&);
template void eval_incident<float>(const Problem&, const KernelData<float>&, double, float*);
template void eval_incident<double>(const Problem&, const KernelData<double>&, double, double*);
template void eval_current<float>(const Problem&, double, float*);
template void eval_current<double>(const Problem&, double, double*);

}  // namespace dgmax
