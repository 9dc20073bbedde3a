#include "solver/backends/kernel_data.hpp"

#include <algorithm>
#include <cmath>

#include "codegen/emit/kernel_spec.hpp"
#include "solver/parallel/comm.hpp"
#include "solver/physics/pml.hpp"
#include "solver/physics/tfsf.hpp"

namespace dgmax {

template <class Real>
KernelData<Real> make_kernel_data(const Problem& p) {
  using namespace codegen;
  const int K = p.K();
  const MeshData& md = *p.md;
  KernelData<Real> d;
  d.geo.assign(static_cast<size_t>(K) * kGeoStride, Real(0));
  d.mat.assign(static_cast<size_t>(K) * kMatStride, Real(0));
  d.etoe.resize(4 * static_cast<size_t>(K));
  d.bc.resize(d.etoe.size());
  d.vert.resize(static_cast<size_t>(K) * kVertStride);
  d.vmapP.assign(p.maps.vmapP.begin(), p.maps.vmapP.end());
#pragma omp parallel for schedule(static)
  for (int k = 0; k < K; ++k) {
    Real* g = &d.geo[static_cast<size_t>(k) * kGeoStride];
    for (int i = 0; i < 9; ++i) g[kGeoDrdx + i] = static_cast<Real>(md.geom.drdx[k][i]);
    for (int f = 0; f < 4; ++f) {
      g[kGeoFscale + f] = static_cast<Real>(md.geom.Fscale[k][f]);
      for (int x = 0; x < 3; ++x) g[kGeoNormal + 3 * f + x] = static_cast<Real>(md.geom.normal[k][f][x]);
      const bool boundary = md.conn.is_boundary(k, f);
      d.etoe[4 * k + f] = md.conn.EToE[k][f];
      d.bc[4 * k + f] = boundary ? static_cast<int>(p.bc[k][f]) : -1;
    }
    double* vk = &d.vert[static_cast<size_t>(k) * kVertStride];
    for (int v = 0; v < 4; ++v)
      for (int x = 0; x < 3; ++x) vk[3 * v + x] = md.mesh.vertices[md.mesh.elements[k][v]][x];
    // a curved element's J is 0 here: the affine norms skip it, dgmax_curved_norms integrates it
    vk[kVertJ] = p.is_curved(k) ? 0.0 : md.geom.J[k];
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
  d.xslot.assign(static_cast<size_t>(K), -1);
  if (p.tfsf) {
    const int first = p.pml ? static_cast<int>(p.pml->elements.size()) : 0;
    d.tfsf_elem = p.tfsf->elements;
    d.tfsf_sign.assign(p.tfsf->sign.begin(), p.tfsf->sign.end());
    for (size_t e = 0; e < d.tfsf_elem.size(); ++e) d.xslot[d.tfsf_elem[e]] = first + static_cast<int>(e);
  }
  if (p.pml) {
    const PmlLayer& layer = *p.pml;
    for (size_t slot = 0; slot < layer.elements.size(); ++slot) d.xslot[layer.elements[slot]] = static_cast<int>(slot);
    d.pml_elem = layer.elements;
    d.pml_coef.assign(layer.elements.size() * kPmlCoef, Real(0));
    for (size_t slot = 0; slot < layer.elements.size(); ++slot) {
      double x[3], sigma[3], kappa[3], alpha[3];  // constant per element (pml_profile.hpp)
      pml_point(&d.vert[static_cast<size_t>(layer.elements[slot]) * kVertStride], x);
      pml_coefficients(layer.profile, x, sigma, kappa, alpha);
      pml_element_coefficients(sigma, kappa, alpha, &d.pml_coef[slot * kPmlCoef]);
    }
    if (layer.profile.kappa_max != 1) {  // the scale of the ordinary right-hand side, per node and component
      const int Np = p.Np();
      d.xscale.assign(static_cast<size_t>(d.slots()) * 6 * Np, Real(1));  // TF/SF slots: 1
      for (size_t slot = 0; slot < layer.elements.size(); ++slot)
        for (int c = 0; c < 6; ++c)
          std::fill_n(&d.xscale[(slot * 6 + c) * Np], Np, d.pml_coef[slot * kPmlCoef + kPmlCoefScale + c % 3]);
    }
  }
  return d;
}

NormSample norm_sample(const double* local) {
  using namespace codegen;
  // over all ranks: sums of squares add, maxima take the largest
  double r[kNumNorms];
  std::copy(local, local + kNumNorms, r);
  double sums[4] = {r[kNormEnergy], r[kNormE2], r[kNormH2], r[kNormJ2]};
  double maxs[2] = {r[kNormEinf], r[kNormHinf]};
  world().sum(sums, 4);
  world().max(maxs, 2);
  r[kNormEnergy] = sums[0], r[kNormE2] = sums[1], r[kNormH2] = sums[2], r[kNormJ2] = sums[3];
  r[kNormEinf] = maxs[0], r[kNormHinf] = maxs[1];
  NormSample s;
  s.energy = r[kNormEnergy];
  s.errors = {std::sqrt(r[kNormE2]), std::sqrt(r[kNormH2]), r[kNormEinf], r[kNormHinf]};
  s.current = std::sqrt(r[kNormJ2]);
  return s;
}

template struct KernelData<float>;
template struct KernelData<double>;
template KernelData<float> make_kernel_data<float>(const Problem&);
template KernelData<double> make_kernel_data<double>(const Problem&);

}  // namespace dgmax
