#include "solver/backends/cpu/cpu_backend.hpp"

#include <string>
#include <type_traits>
#include <vector>

#include "codegen/emit/cpu_kernels.hpp"
#include "codegen/jit/host_jit.hpp"
#include "solver/backends/cpu/kernel_spec_builder.hpp"
#include "solver/time/lserk4.hpp"

namespace dgmax {
namespace {

using codegen::kGeoDrdx;
using codegen::kGeoFscale;
using codegen::kGeoNormal;
using codegen::kGeoStride;
using codegen::kMatStride;

template <class Real>
class CpuBackend final : public Backend {
 public:
  explicit CpuBackend(const Problem& p) : p_(p) {
    const codegen::KernelSpec spec = make_kernel_spec(p, std::is_same_v<Real, float>);
    lib_ = codegen::jit_compile(codegen::generate_cpu_source(spec), "dgmax_cpu_N" + std::to_string(p.N));
    volume_ = reinterpret_cast<VolumeFn>(lib_->symbol("dgmax_volume"));
    surface_ = reinterpret_cast<SurfaceFn>(lib_->symbol("dgmax_surface"));
    lift_ = reinterpret_cast<LiftFn>(lib_->symbol("dgmax_lift"));
    update_ = reinterpret_cast<UpdateFn>(lib_->symbol("dgmax_update"));
    setup_arrays();
  }

  std::string name() const override { return "cpu"; }

  void rhs(const Fields& q, double t, Fields& out) override {
    std::vector<Real> qr(q.q.begin(), q.q.end()), rr(q.q.size());
    compute_rhs(qr.data(), t, rr.data());
    out = Fields(q.K, q.Np);
    for (size_t i = 0; i < rr.size(); ++i) out.q[i] = static_cast<double>(rr[i]);
  }
  void set_state(const Fields& q) override {
    q_.assign(q.q.begin(), q.q.end());
    res_.assign(q_.size(), Real(0));
    rhs_.assign(q_.size(), Real(0));
  }
  void get_state(Fields& q) override {
    q = Fields(p_.K(), p_.Np());
    for (size_t i = 0; i < q_.size(); ++i) q.q[i] = static_cast<double>(q_[i]);
  }
  void step(double t, double dt) override {
    for (int s = 0; s < lserk4::kStages; ++s) {
      compute_rhs(q_.data(), t + lserk4::c[s] * dt, rhs_.data());
      update_(static_cast<long>(q_.size()), static_cast<Real>(lserk4::a[s]), static_cast<Real>(lserk4::b[s]),
              static_cast<Real>(dt), rhs_.data(), res_.data(), q_.data());
    }
  }

 private:
  using VolumeFn = void (*)(int, const Real*, const Real*, Real*);
  using SurfaceFn = void (*)(int, const Real*, const Real*, const Real*, const int*, const int*, const int*,
                             const int*, const Real*, Real*);
  using LiftFn = void (*)(int, const Real*, const Real*, const Real*, const Real*, Real*);
  using UpdateFn = void (*)(long, Real, Real, Real, const Real*, Real*, Real*);

  void setup_arrays() {
    const int K = p_.K(), Np = p_.Np(), Nfp = p_.Nfp();
    const MeshData& md = *p_.md;
    geo_.assign(static_cast<size_t>(K) * kGeoStride, Real(0));
    mat_.assign(static_cast<size_t>(K) * kMatStride, Real(0));
    etoe_.resize(4 * static_cast<size_t>(K));
    bc_.resize(etoe_.size());
    inc_offset_.assign(etoe_.size(), -1);
    vmapP_.assign(p_.maps.vmapP.begin(), p_.maps.vmapP.end());
    for (int k = 0; k < K; ++k) {
      Real* g = &geo_[static_cast<size_t>(k) * kGeoStride];
      for (int i = 0; i < 9; ++i) g[kGeoDrdx + i] = static_cast<Real>(md.geom.drdx[k][i]);
      for (int f = 0; f < 4; ++f) {
        g[kGeoFscale + f] = static_cast<Real>(md.geom.Fscale[k][f]);
        for (int x = 0; x < 3; ++x) g[kGeoNormal + 3 * f + x] = static_cast<Real>(md.geom.normal[k][f][x]);
        etoe_[4 * k + f] = md.conn.EToE[k][f];
        bc_[4 * k + f] = md.conn.is_boundary(k, f) ? static_cast<int>(p_.bc[k][f]) : -1;
        if (md.conn.is_boundary(k, f) && p_.fluxes->exterior_reads_incident[static_cast<int>(p_.bc[k][f])]) {
          inc_offset_[4 * k + f] = static_cast<int>(inc_x_.size());
          for (int j = 0; j < Nfp; ++j) {
            const int node = p_.maps.vmapM[(static_cast<size_t>(k) * 4 + f) * Nfp + j];
            inc_x_.push_back(p_.xyz.x[node]);
            inc_y_.push_back(p_.xyz.y[node]);
            inc_z_.push_back(p_.xyz.z[node]);
          }
        }
      }
      const Material& m = p_.material[k];
      Real* mk = &mat_[static_cast<size_t>(k) * kMatStride];
      mk[codegen::kMatEps] = static_cast<Real>(m.eps);
      mk[codegen::kMatMu] = static_cast<Real>(m.mu);
      mk[codegen::kMatZ] = static_cast<Real>(m.Z());
      mk[codegen::kMatY] = static_cast<Real>(1 / m.Z());
      mk[codegen::kMatInvEps] = static_cast<Real>(1 / m.eps);
      mk[codegen::kMatInvMu] = static_cast<Real>(1 / m.mu);
      mk[codegen::kMatSigmaOverEps] = static_cast<Real>(m.sigma / m.eps);
    }
    inc_.assign(6 * inc_x_.size(), Real(0));
    flux_.assign(static_cast<size_t>(K) * 4 * Nfp * 6, Real(0));
    if (p_.current) J_.assign(3 * static_cast<size_t>(K) * Np, Real(0));
  }

  void evaluate_sources(double t) {
    const size_t n_inc = inc_x_.size();
    if (n_inc > 0) {
      std::vector<double> buf(6 * n_inc);
      double* out[6];
      for (int c = 0; c < 6; ++c) out[c] = buf.data() + c * n_inc;
      p_.incident(n_inc, inc_x_.data(), inc_y_.data(), inc_z_.data(), t, out);
      for (size_t i = 0; i < n_inc; ++i)
        for (int c = 0; c < 6; ++c) inc_[6 * i + c] = static_cast<Real>(out[c][i]);
    }
    if (p_.current) {
      const size_t n = static_cast<size_t>(p_.K()) * p_.Np();
      std::vector<double> buf(3 * n);
      double* out[3] = {buf.data(), buf.data() + n, buf.data() + 2 * n};
      p_.current(n, p_.xyz.x.data(), p_.xyz.y.data(), p_.xyz.z.data(), t, out);
      for (size_t i = 0; i < 3 * n; ++i) J_[i] = static_cast<Real>(buf[i]);
    }
  }

  void compute_rhs(const Real* q, double t, Real* rhs) {
    evaluate_sources(t);
    const int K = p_.K();
    volume_(K, q, geo_.data(), rhs);
    surface_(K, q, geo_.data(), mat_.data(), etoe_.data(), bc_.data(), vmapP_.data(), inc_offset_.data(),
             inc_.data(), flux_.data());
    lift_(K, flux_.data(), mat_.data(), q, J_.empty() ? nullptr : J_.data(), rhs);
  }

  const Problem& p_;
  std::shared_ptr<codegen::LoadedLibrary> lib_;
  VolumeFn volume_ = nullptr;
  SurfaceFn surface_ = nullptr;
  LiftFn lift_ = nullptr;
  UpdateFn update_ = nullptr;
  std::vector<Real> geo_, mat_, inc_, flux_, J_, q_, res_, rhs_;
  std::vector<int> etoe_, bc_, vmapP_, inc_offset_;
  std::vector<double> inc_x_, inc_y_, inc_z_;
};

}  // namespace

std::unique_ptr<Backend> make_cpu_backend(const Problem& p, bool single) {
  if (single) return std::make_unique<CpuBackend<float>>(p);
  return std::make_unique<CpuBackend<double>>(p);
}

}  // namespace dgmax
