#include "solver/backends/cpu/cpu_backend.hpp"

#include <algorithm>
#include <atomic>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

#include "codegen/emit/cpu_kernels.hpp"
#include "codegen/emit/curved_kernels.hpp"
#include "codegen/jit/host_jit.hpp"
#include "solver/backends/cpu/cpu_tuner.hpp"
#include "solver/backends/curved_kernel_data.hpp"
#include "solver/backends/host_state_backend.hpp"
#include "solver/backends/kernel_data.hpp"
#include "solver/backends/kernel_spec_builder.hpp"
#include "solver/mesh/parallel_fill.hpp"
#include "solver/parallel/halo_exchange.hpp"
#include "solver/physics/space_time_field.hpp"
#include "solver/time/lserk4.hpp"
#include "solver/util/error.hpp"

namespace dgmax {
namespace {

// The plan's kernels for `p` as source, and the host compiler's options for them.
std::string cpu_kernel_source(const Problem& p, bool single, const codegen::CpuPlan& plan) {
  codegen::KernelSpec spec = make_kernel_spec(p, single);
  spec.plan.cpu = plan;
  return codegen::generate_cpu_source(spec);
}
codegen::HostJitOptions cpu_jit_options(const codegen::CpuPlan& plan) {
  codegen::HostJitOptions jit;
  if (plan.vector_bits > 0) jit.flags.push_back("-mprefer-vector-width=" + std::to_string(plan.vector_bits));
  return jit;
}
std::string cpu_library_name(const Problem& p) { return "dgmax_cpu_N" + std::to_string(p.N); }

template <class Real>
class CpuBackend final : public HostStateBackend<Real> {
 public:
  using Backend::kernel_seconds_;  // (the base is dependent on Real)
  CpuBackend(const Problem& p, const codegen::CpuPlan& plan)
      : p_(p), plan_(codegen::cpu_plan_fitting_state(plan, p.state_entries())) {
    cd_ = make_curved_kernel_data<Real>(p_);
    res_c_.assign(static_cast<size_t>(cd_.count) * 6 * p_.Np(), Real(0));
    load_kernels(plan_);
    d_ = make_kernel_data<Real>(p_);
    const size_t slots = d_.pml_elem.size();
    psi_.assign(slots * codegen::kPmlAux * p_.Np(), Real(0));
    psi_res_.assign(psi_.size(), Real(0));
    xsrc_.assign(static_cast<size_t>(d_.slots()) * 6 * p_.Np(), Real(0));
    const size_t n = p_.state_entries();
    if (plan_.fused) {
      // each thread's batches in memory of its NUMA node: first touched under the stage's schedule
      // with a chunk of 0 (one contiguous range of batches per thread; the default plan)
      const size_t slice = static_cast<size_t>(plan_.batch) * 6 * p_.Np();
      resize_first_touch(q_, n, slice);
      resize_first_touch(res_, n, slice);
      resize_first_touch(q_next_, n, slice);
      interleave_batches();
    } else {
      q_.assign(n, Real(0));
      res_.assign(n, Real(0));
      rhs_.assign(n, Real(0));
      flux_.assign(static_cast<size_t>(p_.K()) * 4 * p_.Nfp() * 6, Real(0));
    }
    if (halo_exchanges(p_.md->halo)) halo_ = HaloExchange(p_.md->halo, *p_.ref, p_.Np(), sizeof(Real));
  }

  std::string name() const override { return "cpu"; }
  double exchange_wait_seconds() const override { return halo_.wait_seconds(); }

  // Runs `plan`'s kernels from now on, over the same arrays, where its data layout is this plan's
  // (else false, and nothing changes). A plan that does not compile throws and leaves the backend
  // as it was. The plan search swaps plans so instead of making each backend's arrays anew (at
  // K = 384,000, N = 6 that is gigabytes first touched per plan).
  bool adopt_plan(const codegen::CpuPlan& plan) {
    const codegen::CpuPlan fitted = codegen::cpu_plan_fitting_state(plan, p_.state_entries());
    if (!fitted.same_data_layout(plan_)) return false;
    load_kernels(fitted);
    plan_ = fitted;
    return true;
  }

  void rhs(const Fields& q, double t, Fields& out) override {
    // the copies and conversions on all threads (resize_parallel, convert_parallel): at large K
    // they cost more than the stage itself
    const size_t n = q.q.size();
    std::vector<Real> qr, rr;
    resize_parallel(qr, n);
    resize_parallel(rr, n);
    convert_parallel(qr.data(), q.q.data(), n);
    if (stage_) {
      // a stage with a = b = 0, dt = 1 leaves res = rhs; the layer's psi stays (1, 0, 0)
      std::vector<Real> qo;
      resize_parallel(qo, n);
      fused_stage(qr.data(), qo.data(), rr.data(), t, Real(0), Real(0), Real(1), Real(1), Real(0), Real(0));
    } else {
      pml_stage(qr.data(), Real(1), Real(0), Real(0));  // the layer's source only: psi stays
      compute_rhs(qr.data(), t, rr.data());
    }
    curved_rhs(qr.data(), rr.data(), t);
    if (out.K != q.K || out.Np != q.Np || out.q.size() != n) {
      out = Fields();
      out.K = q.K, out.Np = q.Np;
      resize_parallel(out.q, n);
    }
    convert_parallel(out.q.data(), rr.data(), n);
  }
  void set_state(const Fields& q) override {
    DGMAX_ASSERT(q.q.size() == q_.size(), "state does not match the problem's K and Np");
    convert_parallel(q_.data(), q.q.data(), q_.size());
    fill_parallel(res_, Real(0));
    std::fill(res_c_.begin(), res_c_.end(), Real(0));
  }
  void get_aux(std::vector<double>& aux) override {
    aux.assign(psi_.begin(), psi_.end());
    aux.insert(aux.end(), psi_res_.begin(), psi_res_.end());
  }
  void set_aux(const std::vector<double>& aux) override {
    DGMAX_ASSERT(aux.size() == 2 * psi_.size(), "PML auxiliary state does not match the layer");
    std::copy(aux.begin(), aux.begin() + psi_.size(), psi_.begin());
    std::copy(aux.begin() + psi_.size(), aux.end(), psi_res_.begin());
  }
  void get_state(Fields& q) override {
    if (q.K != p_.K() || q.Np != p_.Np()) q = Fields(p_.K(), p_.Np());
    convert_parallel(q.q.data(), q_.data(), q_.size());
  }
  void get_residual(Fields& res) override {
    if (res.K != p_.K() || res.Np != p_.Np()) res = Fields(p_.K(), p_.Np());
    convert_parallel(res.q.data(), res_.data(), res_.size());
  }
  void set_residual(const Fields& res) override {
    DGMAX_ASSERT(res.K == p_.K() && res.Np == p_.Np() && res.q.size() == res_.size(),
                 "residual does not match the problem's K and Np");
    convert_parallel(res_.data(), res.q.data(), res_.size());
    gather_curved_residual();
  }
  void init_state() override {
    long bad = initial_(p_.K(), d_.vert.data(), q_.data());
    if (curved_initial_) {  // the curved elements' nodes at their curved positions
      const long curved_bad = curved_initial_(cd_.count, cd_.cinfo.data(), cd_.cx.data(), q_.data());
      if (curved_bad >= 0 && (bad < 0 || curved_bad < bad)) bad = curved_bad;
    }
    if (bad >= 0) throw_nonfinite_initial(p_, static_cast<size_t>(bad), static_cast<double>(q_[bad]));
    std::fill(res_.begin(), res_.end(), Real(0));
    std::fill(res_c_.begin(), res_c_.end(), Real(0));
    std::fill(psi_.begin(), psi_.end(), Real(0));
    std::fill(psi_res_.begin(), psi_res_.end(), Real(0));
  }
  NormSample norms(double t) override {
    HostTimer timer(kernel_seconds_);
    double out[codegen::kNumNorms];
    norms_(p_.K_owned(), q_.data(), d_.mat.data(), d_.vert.data(), t, out);  // norm_sample sums over ranks
    if (curved_norms_)
      curved_norms_(cd_.count, q_.data(), d_.mat.data(), cd_.cinfo.data(), cd_.cgeo.data(), cd_.cops.data(),
                    cd_.cx.data(), t, out);
    return norm_sample(out);
  }
  void step(double t, double dt) override {
    HostTimer timer(kernel_seconds_);
    for (int s = 0; s < lserk4::kStages; ++s) {
      if (stage_) {
        const Real a = static_cast<Real>(lserk4::a[s]), b = static_cast<Real>(lserk4::b[s]), h = static_cast<Real>(dt);
        fused_stage(q_.data(), q_next_.data(), res_.data(), t + lserk4::c[s] * dt, a, b, h, a, b, h);
        curved_stage(q_.data(), q_next_.data(), t + lserk4::c[s] * dt, a, b, h);
        std::swap(q_, q_next_);
        continue;
      }
      pml_stage(q_.data(), static_cast<Real>(lserk4::a[s]), static_cast<Real>(lserk4::b[s]), static_cast<Real>(dt));
      compute_rhs(q_.data(), t + lserk4::c[s] * dt, rhs_.data());
      curved_rhs(q_.data(), rhs_.data(), t + lserk4::c[s] * dt);
      update_(static_cast<long>(p_.K_owned()) * 6 * p_.Np(), static_cast<Real>(lserk4::a[s]), static_cast<Real>(lserk4::b[s]),
              static_cast<Real>(dt), rhs_.data(), res_.data(), q_.data());
    }
  }

 protected:
  const Real* host_state() const override { return q_.data(); }
  int host_Np() const override { return p_.Np(); }

 private:
  using StageFn = void (*)(int, int, const Real*, const Real*, const Real*, const int*, const int*, const int*,
                           const double*, double, Real*, Real*, Real, Real, Real, const int*, const Real*, const Real*,
                           Real*, Real*, const Real*, int, Real, Real, Real, const Real*, const Real*, const int*,
                           const Real*, const int*);
  using VolumeFn = void (*)(int, const Real*, const Real*, Real*);
  using SurfaceFn = void (*)(int, const Real*, const Real*, const Real*, const int*, const int*, const int*,
                             const double*, double, Real*);
  using LiftFn = void (*)(int, const Real*, const Real*, const Real*, const double*, double, Real*, const int*,
                          const Real*, const Real*);
  using PmlFn = void (*)(int, const int*, const Real*, const double*, Real*, Real*, Real*, Real, Real, Real);
  using TfsfFn = void (*)(int, int, const int*, const int*, const Real*, const Real*, const Real*, const int*, const int*,
                          const double*, double, Real*);
  using UpdateFn = void (*)(long, Real, Real, Real, const Real*, Real*, Real*);
  using InitialFn = long (*)(int, const double*, Real*);
  using NormsFn = void (*)(int, const Real*, const Real*, const double*, double, double*);
  using CurvedStageFn = void (*)(int, int, const Real*, const Real*, const int*, const int*, const int*, const int*,
                                 const Real*, const Real*, const Real*, const double*, double, Real*, Real*, Real*, Real,
                                 Real, Real);
  using CurvedInitialFn = long (*)(int, const int*, const double*, Real*);
  using CurvedNormsFn = void (*)(int, const Real*, const Real*, const int*, const Real*, const Real*, const double*,
                                 double, double*);

  // The curved group after the straight-sided stage (codegen/emit/curved_kernels.hpp): its elements'
  // residual register res_c_ one stage on, q_out and res_ overwritten for them.
  void curved_stage(const Real* q, Real* q_out, double t, Real a, Real b, Real dt) {
    if (!curved_stage_) return;
    curved_stage_(0, cd_.count, q, d_.mat.data(), d_.etoe.data(), d_.bc.data(), d_.vmapP.data(), cd_.cinfo.data(),
                  cd_.cgeo.data(), cd_.cops.data(), cd_.cmat.data(), cd_.cx.data(), t,
                  res_c_.data(), res_.data(), q_out, a, b, dt);
  }
  // The curved elements' right-hand side into rhs (after the straight-sided one wrote theirs).
  void curved_rhs(const Real* q, Real* rhs, double t) {
    if (!curved_stage_) return;
    curved_stage_(0, cd_.count, q, d_.mat.data(), d_.etoe.data(), d_.bc.data(), d_.vmapP.data(), cd_.cinfo.data(),
                  cd_.cgeo.data(), cd_.cops.data(), cd_.cmat.data(), cd_.cx.data(), t,
                  nullptr, rhs, nullptr, Real(0), Real(0), Real(1));
  }
  // res_c_ := the curved elements' rows of res_ (a restart's residual).
  void gather_curved_residual() {
    const size_t n = 6 * static_cast<size_t>(p_.Np());
    for (int c = 0; c < cd_.count; ++c)
      std::copy_n(res_.begin() + static_cast<size_t>(cd_.cinfo[static_cast<size_t>(c) * codegen::kCurvedInfo]) * n, n,
                  res_c_.begin() + static_cast<size_t>(c) * n);
  }

  // The library of `plan`'s kernels (compiled, or from the kernel cache) and their entry points;
  // the members change only once every symbol is found.
  void load_kernels(const codegen::CpuPlan& plan) {
    std::shared_ptr<codegen::LoadedLibrary> lib = codegen::jit_compile(
        cpu_kernel_source(p_, std::is_same_v<Real, float>, plan), cpu_library_name(p_), cpu_jit_options(plan));
    auto fn = [&](auto& out, const char* name) { out = reinterpret_cast<std::decay_t<decltype(out)>>(lib->symbol(name)); };
    StageFn stage = nullptr;
    VolumeFn volume = nullptr;
    SurfaceFn surface = nullptr;
    LiftFn lift = nullptr;
    UpdateFn update = nullptr;
    PmlFn pml = nullptr;
    InitialFn initial = nullptr;
    NormsFn norms = nullptr;
    TfsfFn tfsf = nullptr;
    if (plan.fused) {
      fn(stage, "dgmax_stage");
    } else {
      fn(volume, "dgmax_volume");
      fn(surface, "dgmax_surface");
      fn(lift, "dgmax_lift");
      fn(update, "dgmax_update");
      if (p_.pml) fn(pml, "dgmax_pml");
    }
    fn(initial, "dgmax_initial");
    fn(norms, "dgmax_norms");
    if (p_.tfsf) fn(tfsf, "dgmax_tfsf");
    CurvedStageFn curved_stage = nullptr;
    CurvedInitialFn curved_initial = nullptr;
    CurvedNormsFn curved_norms = nullptr;
    if (cd_.count > 0) {
      fn(curved_stage, "dgmax_curved_stage");
      fn(curved_initial, "dgmax_curved_initial");
      fn(curved_norms, "dgmax_curved_norms");
    }
    curved_stage_ = curved_stage, curved_initial_ = curved_initial, curved_norms_ = curved_norms;
    lib_ = std::move(lib);
    stage_ = stage, volume_ = volume, surface_ = surface, lift_ = lift, update_ = update, pml_ = pml;
    initial_ = initial, norms_ = norms, tfsf_ = tfsf;
  }

  // One fused LSERK stage of the owned elements: q → q_out, res in place, the layer's psi one
  // stage on (pa, pb, pdt). With several ranks the ghosts' face traces of q arrive while the
  // interior elements (which read no ghost) are computed, unless a TF/SF pass must read them first.
  void fused_stage(Real* q, Real* q_out, Real* res, double t, Real a, Real b, Real dt, Real pa, Real pb, Real pdt) {
    const int K = p_.K_owned();
    int split = 0;
    auto run = [&](int k0, int k1) {
      if (k1 > k0)
        stage_(k0, k1, q, d_.geo.data(), d_.mat.data(), d_.etoe.data(), d_.bc.data(), d_.vmapP.data(), d_.vert.data(),
               t, res, q_out, a, b, dt, d_.xslot.data(), xsrc_.data(), d_.xscale.data(), psi_.data(), psi_res_.data(),
               d_.pml_coef.data(), static_cast<int>(d_.pml_elem.size()), pa, pb, pdt, geow_.data(), matw_.data(),
               nbrw_.data(), matpw_.data(), tracew_.data());
    };
    if (halo_.active()) {
      halo_.start(q);
      if (!tfsf_) {
        const int interior = p_.md->halo.K_interior;
        split = (interior < 0 ? K : interior) / plan_.batch * plan_.batch;  // whole batches
        run(0, split);
      }
      halo_.finish(q);
    }
    if (tfsf_)  // the incident field's correction at the box faces, into the TF/SF slots of xsrc_
      tfsf_(static_cast<int>(d_.tfsf_elem.size()), static_cast<int>(d_.pml_elem.size()), d_.tfsf_elem.data(),
            d_.tfsf_sign.data(), q, d_.geo.data(), d_.mat.data(), d_.etoe.data(), d_.vmapP.data(), d_.vert.data(), t,
            xsrc_.data());
    run(split, K);
  }

  // The batch-interleaved copies dgmax_stage reads (codegen/emit/cpu_kernels.cpp): batch b holds
  // owned elements bW .. bW+W-1, lanes past the last one repeat it. geow_: [batches][kGeoStride][W],
  // matw_: [batches][kMatStride][W], nbrw_: [batches][4][W], matpw_: [batches][4][4][W] (eps, mu,
  // Z, Y across each face; its own on the boundary), tracew_: [batches][4·Nfp][W] (the
  // exterior trace's offset k'·6·Np + i' in the state, or with wide trace offsets its node
  // k'·Np + i'; the element's own face node on the boundary).
  void interleave_batches() {
    const int W = plan_.batch, K = p_.K_owned(), Np = p_.Np(), Nfp = p_.Nfp(), batches = (K + W - 1) / W;
    const int G = codegen::kGeoStride, M = codegen::kMatStride;
    // first touched batch by batch by the threads of the stage's schedule (resize_first_touch)
    auto size = [&](auto& v, size_t per_batch) { resize_first_touch(v, static_cast<size_t>(batches) * per_batch, per_batch); };
    size(geow_, static_cast<size_t>(G) * W);
    size(matw_, static_cast<size_t>(M) * W);
    size(nbrw_, 4 * static_cast<size_t>(W));
    std::fill(nbrw_.begin(), nbrw_.end(), -1);
    size(matpw_, 16 * static_cast<size_t>(W));
    size(tracew_, 4 * static_cast<size_t>(Nfp) * W);
    for (int bn = 0; bn < batches; ++bn)
      for (int e = 0; e < W; ++e) {
        const size_t k = static_cast<size_t>(std::min(bn * W + e, K - 1)), b = static_cast<size_t>(bn);
        for (int m = 0; m < G; ++m) geow_[(b * G + m) * W + e] = d_.geo[k * G + m];
        for (int m = 0; m < M; ++m) matw_[(b * M + m) * W + e] = d_.mat[k * M + m];
        for (int f = 0; f < 4; ++f) {
          const int kp = d_.etoe[k * 4 + f];
          nbrw_[(b * 4 + f) * W + e] = kp;
          const size_t kq = kp >= 0 ? static_cast<size_t>(kp) : k;  // the other side's materials
          const int fields[4] = {codegen::kMatEps, codegen::kMatMu, codegen::kMatZ, codegen::kMatY};
          for (int x = 0; x < 4; ++x) matpw_[((b * 4 + f) * 4 + x) * W + e] = d_.mat[kq * M + fields[x]];
          for (int j = 0; j < Nfp; ++j) {
            const int node =
                kp >= 0 ? d_.vmapP[(k * 4 + f) * Nfp + j] : static_cast<int>(k) * Np + p_.ref->Fmask(j, f);
            tracew_[(b * 4 * Nfp + f * Nfp + j) * W + e] =
                plan_.wide_trace_offsets ? node : (node / Np) * 6 * Np + node % Np;  // < 2^31 (the plan's check)
          }
        }
      }
  }

  // Four passes: the right-hand side of the owned elements; with several ranks the ghosts' face traces of q
  // arrive while the volume terms are computed.
  void compute_rhs(Real* q, double t, Real* rhs) {
    const int K = p_.K_owned();
    if (halo_.active()) halo_.start(q);
    volume_(K, q, d_.geo.data(), rhs);
    if (halo_.active()) halo_.finish(q);
    if (tfsf_)  // the incident field's correction at the box faces, into the TF/SF slots of xsrc_
      tfsf_(static_cast<int>(d_.tfsf_elem.size()), static_cast<int>(d_.pml_elem.size()), d_.tfsf_elem.data(),
            d_.tfsf_sign.data(), q, d_.geo.data(), d_.mat.data(), d_.etoe.data(), d_.vmapP.data(), d_.vert.data(), t,
            xsrc_.data());
    surface_(K, q, d_.geo.data(), d_.mat.data(), d_.etoe.data(), d_.bc.data(), d_.vmapP.data(), d_.vert.data(), t,
             flux_.data());
    lift_(K, flux_.data(), d_.mat.data(), q, d_.vert.data(), t, rhs, d_.xslot.data(), xsrc_.data(), d_.xscale.data());
  }

  // The layer's auxiliary fields one LSERK stage on (a, b, dt) and its source for the stage's
  // right-hand side (a = 1, b = dt = 0: the source only).
  void pml_stage(const Real* q, Real a, Real b, Real dt) {
    if (!pml_) return;
    pml_(static_cast<int>(d_.pml_elem.size()), d_.pml_elem.data(), q, d_.vert.data(), psi_.data(), psi_res_.data(),
         xsrc_.data(), a, b, dt);
  }

  const Problem& p_;
  codegen::CpuPlan plan_;
  std::shared_ptr<codegen::LoadedLibrary> lib_;
  StageFn stage_ = nullptr;  // fused plans: one pass per stage
  VolumeFn volume_ = nullptr;
  SurfaceFn surface_ = nullptr;
  LiftFn lift_ = nullptr;
  UpdateFn update_ = nullptr;
  InitialFn initial_ = nullptr;
  NormsFn norms_ = nullptr;
  PmlFn pml_ = nullptr;
  TfsfFn tfsf_ = nullptr;
  CurvedStageFn curved_stage_ = nullptr;  // with curved elements only
  CurvedInitialFn curved_initial_ = nullptr;
  CurvedNormsFn curved_norms_ = nullptr;
  KernelData<Real> d_;
  CurvedKernelData<Real> cd_;  // the curved group's slots, geometry and operators
  std::vector<Real> res_c_;    // [Kc][6][Np] the curved elements' LSERK residual register
  HaloExchange halo_;  // with several ranks: the ghosts' face traces
  // q_, q_next_, res_, rhs_: [K][6][Np]; flux_: [K][4][Nfp][6]. A fused stage writes q_next_ from
  // q_ and swaps them; four passes use rhs_ and flux_ instead.
  std::vector<Real> flux_, q_, q_next_, res_, rhs_;
  std::vector<Real> geow_, matw_, matpw_;  // fused: batch-interleaved geometry and materials
  std::vector<int> nbrw_, tracew_;     // fused: batch-interleaved neighbours and exterior-trace nodes
  std::vector<Real> psi_, psi_res_, xsrc_;  // layer: psi_, psi_res_: [slots][18][Np]; xsrc_: [slots][6][Np]
};

}  // namespace

std::unique_ptr<Backend> make_cpu_backend(const Problem& p, bool single) {
  return make_cpu_backend_with_plan(p, single, cpu_plan_for_problem(p, single));
}

std::unique_ptr<Backend> make_cpu_backend_with_plan(const Problem& p, bool single, const codegen::CpuPlan& plan) {
  if (single) return std::make_unique<CpuBackend<float>>(p, plan);
  return std::make_unique<CpuBackend<double>>(p, plan);
}

bool adopt_cpu_plan(Backend& be, const codegen::CpuPlan& plan) {
  if (auto* b = dynamic_cast<CpuBackend<double>*>(&be)) return b->adopt_plan(plan);
  if (auto* b = dynamic_cast<CpuBackend<float>*>(&be)) return b->adopt_plan(plan);
  return false;
}

void precompile_cpu_plans(const Problem& p, bool single, const std::vector<codegen::CpuPlan>& plans) {
  // the sources here, one after the other (generating reads the problem); the compiles in parallel
  std::vector<codegen::CpuPlan> fitted;
  std::vector<std::string> sources;
  for (const codegen::CpuPlan& plan : plans) {
    fitted.push_back(codegen::cpu_plan_fitting_state(plan, p.state_entries()));
    sources.push_back(cpu_kernel_source(p, single, fitted.back()));
  }
  std::atomic<size_t> next{0};
  const unsigned workers = std::max(1u, std::min<unsigned>(std::thread::hardware_concurrency(), plans.size()));
  std::vector<std::thread> pool;
  for (unsigned w = 0; w < workers; ++w)
    pool.emplace_back([&] {
      for (size_t i = next++; i < plans.size(); i = next++) {
        try {
          codegen::jit_compile(sources[i], cpu_library_name(p), cpu_jit_options(fitted[i]));
        } catch (const std::exception&) {  // the backend made with the plan reports it
        }
      }
    });
  for (std::thread& t : pool) t.join();
}

}  // namespace dgmax
