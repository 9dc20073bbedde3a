#include "solver/backends/cuda/cuda_backend.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <limits>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "codegen/emit/cuda_kernels.hpp"
#include "codegen/emit/curved_kernels.hpp"
#include "codegen/jit/nvrtc_jit.hpp"
#include "solver/backends/cuda/cuda_driver.hpp"
#include "solver/backends/cuda/cuda_halo.hpp"
#include "solver/backends/cuda/cuda_monitors.hpp"
#include "solver/backends/device_memory.hpp"
#include "solver/backends/curved_kernel_data.hpp"
#include "solver/backends/kernel_data.hpp"
#include "solver/backends/kernel_spec_builder.hpp"
#include "solver/physics/pml.hpp"
#include "solver/physics/space_time_field.hpp"
#include "solver/time/lserk4.hpp"
#include "solver/util/env.hpp"
#include "solver/util/error.hpp"

namespace dgmax {
namespace {

template <class Real>
class CudaBackend final : public CudaPlanBackend {
 public:
  CudaBackend(const Problem& p, const codegen::CudaPlan& plan) : p_(p), ctx_(cuda::Context::get()) {
    spec_ = make_kernel_spec(p, std::is_same_v<Real, float>);
    set_plan(plan);
    check_memory();
    upload_data();
  }

  const codegen::CudaPlan& plan() const override { return spec_.plan.cuda; }

  void set_plan(const codegen::CudaPlan& plan) override {
    const bool single = std::is_same_v<Real, float>;
    const std::string why =
        codegen::cuda_plan_rejection(plan, p_.N, single, cuda_block_limits(), spec_.current.has_value());
    DGMAX_ASSERT(why.empty(), "cuda plan " + plan.name() + " cannot run: " + why);
    spec_.plan.cuda = plan;
    if (const std::string why = codegen::curved_cuda_refusal(spec_, cuda_block_limits().max_dynamic_shared);
        !why.empty())
      throw UserError(why, {}, "lower discretization.order or mesh.geometry_order, or run with backend: cpu");
    const codegen::NvrtcOptions opt =
        codegen::NvrtcOptions::for_kernels(codegen::cuda_plan_arch(plan, ctx_.info().arch()));
    const std::string name = "dgmax_cuda_N" + std::to_string(p_.N) + (single ? "_fp32_" : "_fp64_") + plan.name();
    module_ = std::make_unique<cuda::Module>(ctx_, codegen::nvrtc_compile(codegen::generate_cuda_source(spec_), name, opt), name);
    // the module holds the kernels of the plan's fusion level only
    fuse_level_ = plan.fusion;
    volume_ = surface_ = lift_ = surface_lift_ = stage_ = nullptr;
    if (fuse_level_ <= 1) volume_ = module_->function("dgmax_volume");
    if (fuse_level_ == 1) surface_lift_ = module_->function("dgmax_surface_lift");
    if (fuse_level_ == 0) surface_ = module_->function("dgmax_surface"), lift_ = module_->function("dgmax_lift");
    if (fuse_level_ == 2) stage_ = module_->function("dgmax_stage");
    stage_dynamic_shared_ = 0;
    if (plan.mma) {  // the B fragments live in dynamic shared memory (more than 48 KB at high order)
      stage_dynamic_shared_ = static_cast<unsigned>(plan.shared_bytes(p_.Np(), p_.Nfp(), single, spec_.current.has_value()));
      cuda::set_max_dynamic_shared(stage_, "dgmax_stage", static_cast<int>(stage_dynamic_shared_));
    }
    // E plans' blocks are persistent (they copy the operators once, then loop over element groups):
    // as many as are resident at once
    resident_stage_blocks_ = 0;
    if (plan.mma && plan.mma_state_rows) {
      const int per_sm = cuda::max_active_blocks(stage_, "dgmax_stage", static_cast<int>(element_block().x),
                                                 stage_dynamic_shared_);
      DGMAX_ASSERT(per_sm > 0, "cuda plan " + plan.name() + ": no block of dgmax_stage fits a multiprocessor");
      resident_stage_blocks_ = static_cast<unsigned>(per_sm * ctx_.info().sm_count);
    }
    update_ = module_->function("dgmax_update");
    initial_ = module_->function("dgmax_initial");
    norms_ = module_->function("dgmax_norms");
    // whole-stage kernels advance the layer's auxiliary fields themselves (stage_extra)
    pml_ = spec_.pml && !codegen::cuda_pml_in_stage(spec_) ? module_->function("dgmax_pml") : nullptr;
    tfsf_ = spec_.tfsf ? module_->function("dgmax_tfsf") : nullptr;
    curved_stage_ = curved_initial_ = curved_norms_ = nullptr;
    if (spec_.curved_Nq > 0) {
      curved_stage_ = module_->function("dgmax_curved_stage");
      cuda::set_max_dynamic_shared(curved_stage_, "dgmax_curved_stage",
                                   static_cast<int>(codegen::curved_block(spec_).shared_bytes));
      curved_initial_ = module_->function("dgmax_curved_initial");
      curved_norms_ = module_->function("dgmax_curved_norms");
    }
    if (std::getenv("DGMAX_CUDA_VERBOSE"))  // what the compiler made of each kernel
      for (const CudaKernelReport& r : kernel_reports())
        std::fprintf(stderr, "%s (plan %s): %d registers, %d B shared, %d B local per thread, %d of max %d threads, %d blocks per SM\n",
                     r.kernel.c_str(), plan.name().c_str(), r.registers, r.shared_bytes, r.local_bytes, r.threads,
                     r.max_threads, r.blocks_per_sm);
  }

  std::vector<CudaKernelReport> kernel_reports() const override {
    std::vector<std::pair<const char*, cuda::Function>> kernels;
    if (fuse_level_ >= 2) kernels = {{"dgmax_stage", stage_}};
    else if (fuse_level_ == 1) kernels = {{"dgmax_volume", volume_}, {"dgmax_surface_lift", surface_lift_}};
    else kernels = {{"dgmax_volume", volume_}, {"dgmax_surface", surface_}, {"dgmax_lift", lift_}};
    std::vector<CudaKernelReport> out;
    for (const auto& [name, f] : kernels) {
      const cuda::KernelAttributes a = cuda::kernel_attributes(f);
      CudaKernelReport r;
      r.kernel = name;
      r.registers = a.num_regs;
      r.shared_bytes = a.static_shared_bytes + static_cast<int>(stage_dynamic_shared_);
      r.local_bytes = a.local_bytes;
      r.max_threads = a.max_threads_per_block;
      r.threads = std::string(name) == "dgmax_surface" ? 256 : static_cast<int>(element_block().x * element_block().y);
      r.blocks_per_sm = r.threads <= r.max_threads ? cuda::max_active_blocks(f, name, r.threads, stage_dynamic_shared_) : 0;
      out.push_back(r);
    }
    return out;
  }

  std::string name() const override { return "cuda"; }

  void rhs(const Fields& q, double t, Fields& out) override {
    std::vector<Real> host(q.q.begin(), q.q.end());
    cuda::DeviceBuffer qd(ctx_, host.size() * sizeof(Real), "state (rhs)");
    qd.upload(host);
    exchange(qd);
    pml_stage(qd, Real(1), Real(0), Real(0));  // the layer's source only: psi stays
    tfsf_stage(qd, t);
    if (fuse_level_ >= 2) {  // the stage kernel with a = 0, b = 0, dt = 1 leaves res = rhs
      // (and psi as it was, psi_res = psi' when it advances the layer: both residuals are put back)
      cuda::DeviceBuffer kept(ctx_, n_ * sizeof(Real), "LSERK residual (kept across rhs)");
      kept.copy_from(res_, n_ * sizeof(Real));
      cuda::DeviceBuffer kept_psi(ctx_, std::max<size_t>(1, psi_elems_) * sizeof(Real), "layer residual (kept across rhs)");
      if (psi_elems_ > 0) kept_psi.copy_from(psi_res_, psi_elems_ * sizeof(Real));
      res_.zero();
      launch_stage(qd, q_next_, t, Real(0), Real(0), Real(1));
      curved_rhs(qd, res_, t);
      res_.download(host);
      res_.copy_from(kept, n_ * sizeof(Real));
      if (psi_elems_ > 0) psi_res_.copy_from(kept_psi, psi_elems_ * sizeof(Real));
    } else {
      compute_rhs(qd, t);
      curved_rhs(qd, rhs_, t);
      rhs_.download(host);
    }
    out = Fields(q.K, q.Np);
    for (size_t i = 0; i < host.size(); ++i) out.q[i] = static_cast<double>(host[i]);
  }
  void set_state(const Fields& q) override {
    std::vector<Real> host(q.q.begin(), q.q.end());
    q_.upload(host);
    res_.zero();
    res_c_.zero();
  }
  void get_state(Fields& q) override { download_fields(q_, q); }
  void get_aux(std::vector<double>& aux) override {
    std::vector<Real> host(psi_elems_);
    aux.clear();
    if (psi_elems_ == 0) return;
    for (const cuda::DeviceBuffer* b : {&psi_, &psi_res_}) {
      b->download(host);
      aux.insert(aux.end(), host.begin(), host.end());
    }
  }
  void set_aux(const std::vector<double>& aux) override {
    DGMAX_ASSERT(aux.size() == 2 * psi_elems_, "PML auxiliary state does not match the layer");
    if (psi_elems_ == 0) return;
    std::vector<Real> host(aux.begin(), aux.begin() + psi_elems_);
    psi_.upload(host);
    host.assign(aux.begin() + psi_elems_, aux.end());
    psi_res_.upload(host);
  }
  void get_residual(Fields& res) override { download_fields(res_, res); }
  void set_residual(const Fields& res) override {
    DGMAX_ASSERT(res.K == p_.K() && res.Np == p_.Np() && res.q.size() == n_,
                 "residual does not match the problem's K and Np");
    if constexpr (std::is_same_v<Real, double>) {
      res_.upload(res.q);
    } else {
      host_stage_.resize(n_);
      const double* src = res.q.data();
      Real* dst = host_stage_.data();
      const long n = static_cast<long>(n_);
#pragma omp parallel for schedule(static)
      for (long i = 0; i < n; ++i) dst[i] = static_cast<Real>(src[i]);
      res_.upload(host_stage_);
    }
    gather_curved_residual(res.q);
  }
  void init_state() override {
    const unsigned long long none = std::numeric_limits<unsigned long long>::max();
    cuda::DeviceBuffer bad(ctx_, sizeof(none), "initial-state check");
    bad.upload(&none, sizeof(none));
    int K = p_.K();
    cuda::DevicePtr vert = vert_.ptr(), q = q_.ptr(), badp = bad.ptr();
    void* args[] = {&K, &vert, &q, &badp};
    cuda::launch(initial_, "dgmax_initial", norm_element_blocks(), norm_block(), 0, args);
    if (curved_initial_) {  // the curved elements' nodes at their curved positions
      int Kc = curved_count_;
      cuda::DevicePtr cinfo = cinfo_.ptr(), cx = cx_.ptr();
      void* cargs[] = {&Kc, &cinfo, &cx, &q, &badp};
      const long threads = static_cast<long>(Kc) * p_.Np();
      cuda::launch(curved_initial_, "dgmax_curved_initial", static_cast<unsigned>((threads + 127) / 128), 128, 0, cargs);
    }
    unsigned long long first = none;
    bad.download(&first, sizeof(first));
    if (first != none) {
      Real v = 0;
      q_.download(&v, sizeof(Real), static_cast<size_t>(first) * sizeof(Real));
      throw_nonfinite_initial(p_, static_cast<size_t>(first), static_cast<double>(v));
    }
    res_.zero();
    res_c_.zero();
    psi_.zero();
    psi_res_.zero();
  }
  // Each block writes kNumNorms partial results; the host adds them in block order, so the result
  // does not depend on scheduling (bitwise repeatable).
  NormSample norms(double t) override {
    begin_timed();
    int K = p_.K_owned();  // norm_sample sums over ranks
    cuda::DevicePtr q = q_.ptr(), mat = mat_.ptr(), vert = vert_.ptr(), part = partial_.ptr();
    void* args[] = {&K, &q, &mat, &vert, &t, &part};
    cuda::launch(norms_, "dgmax_norms", norm_blocks_, norm_block(), 0, args);
    if (curved_norms_) {
      int Kc = curved_count_;
      cuda::DevicePtr cinfo = cinfo_.ptr(), cgeo = cgeo_.ptr(), cops = cops_.ptr(), cx = cx_.ptr(),
                      cpart = curved_partial_.ptr();
      void* cargs[] = {&Kc, &q, &mat, &cinfo, &cgeo, &cops, &cx, &t, &cpart};
      cuda::launch(curved_norms_, "dgmax_curved_norms", static_cast<unsigned>(Kc), codegen::kCurvedThreads, 0, cargs);
    }
    end_timed();
    std::vector<double> host(static_cast<size_t>(norm_blocks_) * codegen::kNumNorms);
    partial_.download(host);
    double r[codegen::kNumNorms];
    for (int n = 0; n < codegen::kNumNorms; ++n) r[n] = host[n];
    for (unsigned b = 1; b < norm_blocks_; ++b)
      for (int n = 0; n < codegen::kNumNorms; ++n) {
        const double v = host[static_cast<size_t>(b) * codegen::kNumNorms + n];
        r[n] = codegen::norm_is_max(n) ? max_nan(r[n], v) : r[n] + v;
      }
    if (curved_norms_) {  // the curved blocks' partial results, added in block order too
      std::vector<double> cpart(static_cast<size_t>(curved_count_) * codegen::kNumNorms);
      curved_partial_.download(cpart);
      for (int c = 0; c < curved_count_; ++c)
        for (int n = 0; n < codegen::kNumNorms; ++n) {
          const double v = cpart[static_cast<size_t>(c) * codegen::kNumNorms + n];
          r[n] = codegen::norm_is_max(n) ? max_nan(r[n], v) : r[n] + v;
        }
    }
    return norm_sample(r);
  }
  double kernel_seconds() override {
    while (!pending_.empty()) harvest_oldest();
    return kernel_seconds_;
  }
  double time_steps(int steps, double dt) override {
    cuda::Event start(ctx_), stop(ctx_);
    start.record();
    for (int s = 0; s < steps; ++s) step(s * dt, dt);
    stop.record();
    return stop.elapsed_ms(start) / 1e3;
  }
  // (both wait for the device: the exchange's times are read off its events)
  double exchange_wait_seconds() const override { return halo_ ? halo_->exposed_seconds() : 0.0; }
  double exchange_hidden_seconds() const override { return halo_ ? halo_->hidden_seconds() : 0.0; }
  void step(double t, double dt) override {
    begin_timed();
    step_kernels(t, dt);
    end_timed();
  }
  void probe_setup(const std::vector<int>& elements, const std::vector<double>& weights) override {
    monitors_.probe_setup(elements, weights);
  }
  void probe_sample(std::vector<double>& out) override { monitors_.probe_sample(q_.ptr(), out); }
  int dft_add(const std::vector<long>& nodes, const std::vector<double>& freqs) override { return monitors_.dft_add(nodes, freqs); }
  void dft_accumulate(double t, double dt) override { monitors_.dft_accumulate(q_.ptr(), t, dt); }
  void dft_get(int set, std::vector<double>& re, std::vector<double>& im) override { monitors_.dft_get(set, re, im); }
  void dft_set(int set, const std::vector<double>& re, const std::vector<double>& im) override { monitors_.dft_set(set, re, im); }

 private:
  // A [K][6][Np] device array (state or residual) into `out`, widened to double.
  void download_fields(const cuda::DeviceBuffer& buf, Fields& out) {
    if (out.K != p_.K() || out.Np != p_.Np() || out.q.size() != n_) out = Fields(p_.K(), p_.Np());
    if constexpr (std::is_same_v<Real, double>) {
      buf.download(out.q);
    } else {
      // a staging buffer kept between snapshots (no fresh allocation and first touch each time)
      host_stage_.resize(n_);
      buf.download(host_stage_);
      const Real* src = host_stage_.data();
      double* dst = out.q.data();
      const long n = static_cast<long>(n_);
#pragma omp parallel for schedule(static)
      for (long i = 0; i < n; ++i) dst[i] = static_cast<double>(src[i]);
    }
  }

  void step_kernels(double t, double dt) {
    for (int s = 0; s < lserk4::kStages; ++s) {
      if (const int split = overlap_split(); split > 0) {
        overlapped_stage(split, t + lserk4::c[s] * dt, static_cast<Real>(lserk4::a[s]), static_cast<Real>(lserk4::b[s]),
                         static_cast<Real>(dt));
        continue;
      }
      exchange(q_);
      pml_stage(q_, static_cast<Real>(lserk4::a[s]), static_cast<Real>(lserk4::b[s]), static_cast<Real>(dt));
      tfsf_stage(q_, t + lserk4::c[s] * dt);
      if (fuse_level_ >= 2) {
        fused_stage(t + lserk4::c[s] * dt, static_cast<Real>(lserk4::a[s]), static_cast<Real>(lserk4::b[s]),
                    static_cast<Real>(dt));
        continue;
      }
      compute_rhs(q_, t + lserk4::c[s] * dt);
      curved_rhs(q_, rhs_, t + lserk4::c[s] * dt);
      update(static_cast<Real>(lserk4::a[s]), static_cast<Real>(lserk4::b[s]), static_cast<Real>(dt));
    }
  }

  // Kernel time from event pairs around each step and reduction; a pair is read back once its
  // work is done (at the latest when kMaxPending pairs wait, which is far behind the queue's head).
  struct EventPair {
    cuda::Event start, stop;
  };
  static constexpr size_t kMaxPending = 64;
  void begin_timed() {
    if (spare_.empty()) spare_.push_back(EventPair{cuda::Event(ctx_), cuda::Event(ctx_)});
    pending_.push_back(std::move(spare_.back()));
    spare_.pop_back();
    pending_.back().start.record();
  }
  void end_timed() {
    pending_.back().stop.record();
    if (pending_.size() > kMaxPending) harvest_oldest();
  }
  void harvest_oldest() {
    kernel_seconds_ += pending_.front().stop.elapsed_ms(pending_.front().start) / 1e3;
    spare_.push_back(std::move(pending_.front()));
    pending_.pop_front();
  }

  // Volume, lift and stage kernels: the plan's blocks of (Np, EPB / EPT) threads.
  unsigned element_blocks() const {
    const int epb = plan().elements_per_block;
    return static_cast<unsigned>((p_.K_owned() + epb - 1) / epb);
  }
  cuda::Dim3 element_block() const {
    if (plan().mma)
      return cuda::Dim3(static_cast<unsigned>(plan().threads_per_block(p_.Np(), std::is_same_v<Real, float>)), 1);
    return cuda::Dim3(static_cast<unsigned>(p_.Np()), static_cast<unsigned>(plan().elements_per_block / plan().elements_per_thread));
  }
  // Initial state and norms: blocks of (Np, NEPB) threads whatever the plan.
  int norm_epb() const { return codegen::cuda_norm_elements_per_block(p_.Np()); }
  unsigned norm_element_blocks() const { return static_cast<unsigned>((p_.K() + norm_epb() - 1) / norm_epb()); }
  cuda::Dim3 norm_block() const { return cuda::Dim3(static_cast<unsigned>(p_.Np()), static_cast<unsigned>(norm_epb())); }

  // Everything that lives on the device, in bytes, to refuse early with a useful message.
  void check_memory() {
    const size_t K = p_.K(), Np = p_.Np(), Nfp = p_.Nfp();
    n_ = K * 6 * Np;
    const size_t slots = p_.pml ? p_.pml->elements.size() : 0;
    const size_t need = sizeof(Real) * (4 * n_ + K * codegen::kGeoStride + K * codegen::kMatStride + K * 4 * Nfp * 6 +
                                        slots * (Np * (2 * codegen::kPmlAux + 12) + codegen::kPmlCoef)) +
                        sizeof(double) * K * codegen::kVertStride + sizeof(int) * (K * 4 * (2 + Nfp));
    check_device_memory(need, ctx_.mem_info().free, n_, ctx_.info().name);
  }

  void upload_data() {
    const KernelData<Real> d = make_kernel_data<Real>(p_);
    auto upload = [&](cuda::DeviceBuffer& buf, const auto& v, const char* what) {
      using T = typename std::decay_t<decltype(v)>::value_type;
      buf = cuda::DeviceBuffer(ctx_, std::max<size_t>(1, v.size()) * sizeof(T), what);
      if (!v.empty()) buf.upload(v);
    };
    upload(geo_, d.geo, "geometric factors");
    upload(mat_, d.mat, "materials");
    upload(etoe_, d.etoe, "element neighbours");
    upload(bc_, d.bc, "boundary conditions");
    upload(vmapP_, d.vmapP, "face node map");
    upload(vert_, d.vert, "element vertices");
    upload(xslot_, d.xslot, "layer slots");
    upload(pml_elem_, d.pml_elem, "layer elements");
    upload(pml_coef_, d.pml_coef, "layer coefficients");
    upload(xscale_, d.xscale, "layer scale");
    upload(tfsf_elem_, d.tfsf_elem, "TF/SF elements");
    upload(tfsf_sign_, d.tfsf_sign, "TF/SF face signs");
    psi_elems_ = d.pml_elem.size() * codegen::kPmlAux * p_.Np();
    psi_ = cuda::DeviceBuffer(ctx_, std::max<size_t>(1, psi_elems_) * sizeof(Real), "layer auxiliary fields");
    psi_res_ = cuda::DeviceBuffer(ctx_, std::max<size_t>(1, psi_elems_) * sizeof(Real), "layer auxiliary residual");
    xsrc_ = cuda::DeviceBuffer(ctx_, std::max<size_t>(1, static_cast<size_t>(d.slots()) * 6 * p_.Np()) * sizeof(Real),
                               "layer and TF/SF source");
    const CurvedKernelData<Real> cd = make_curved_kernel_data<Real>(p_);
    curved_count_ = cd.count;
    curved_cinfo_ = cd.cinfo;
    upload(cinfo_, cd.cinfo, "curved element slots");
    upload(cgeo_, cd.cgeo, "curved geometric factors");
    upload(cops_, cd.cops, "curved reference operators");
    upload(cmat_, cd.cmat, "curved element operators");
    upload(cx_, cd.cx, "curved node positions");
    res_c_ = cuda::DeviceBuffer(ctx_, std::max<size_t>(1, static_cast<size_t>(cd.count) * 6 * p_.Np()) * sizeof(Real),
                                "curved LSERK residual");
    res_c_.zero();
    curved_partial_ = cuda::DeviceBuffer(ctx_, std::max<size_t>(1, static_cast<size_t>(cd.count) * codegen::kNumNorms) *
                                                   sizeof(double),
                                         "curved norm partial sums");
    tfsf_count_ = static_cast<int>(d.tfsf_elem.size());
    tfsf_first_ = static_cast<int>(d.pml_elem.size());
    psi_.zero();
    psi_res_.zero();
    q_ = cuda::DeviceBuffer(ctx_, n_ * sizeof(Real), "state");
    q_next_ = cuda::DeviceBuffer(ctx_, n_ * sizeof(Real), "state (next stage)");
    res_ = cuda::DeviceBuffer(ctx_, n_ * sizeof(Real), "LSERK residual");
    rhs_ = cuda::DeviceBuffer(ctx_, n_ * sizeof(Real), "right-hand side");
    flux_ = cuda::DeviceBuffer(ctx_, static_cast<size_t>(p_.K()) * 4 * p_.Nfp() * 6 * sizeof(Real), "face fluxes");
    // a few blocks per SM stride over all elements (a fixed count: the sums come out the same every time)
    norm_blocks_ = static_cast<unsigned>(std::min<long>(norm_element_blocks(), 4L * ctx_.info().sm_count));
    partial_ = cuda::DeviceBuffer(ctx_, static_cast<size_t>(norm_blocks_) * codegen::kNumNorms * sizeof(double),
                                  "norm partial sums");
    res_.zero();
    q_.zero();
    if (halo_exchanges(p_.md->halo)) {
      halo_ = std::make_unique<CudaHalo>(ctx_, p_.md->halo, *p_.ref, p_.Np(), std::is_same_v<Real, float>);
    }
  }

  // A partitioned run: the ghosts' face nodes of q := the neighbours' traces (before every stage).
  void exchange(const cuda::DeviceBuffer& q) {
    if (halo_) halo_->exchange(q.ptr());
  }

  // Elements [0, split) need no ghost (the owned elements come interior first, Halo::K_interior):
  // with a whole-stage kernel and no TF/SF pass (which reads ghosts before the stage), they run
  // while the traces travel. split is a multiple of the block's elements, so the blocks are those of
  // one launch; 0: no overlap (one rank, another plan form, TF/SF, or DGMAX_HALO_OVERLAP=0).
  int overlap_split() const {
    if (!halo_ || !overlap_enabled_ || fuse_level_ < 2 || tfsf_) return 0;
    const int epb = plan().elements_per_block, interior = p_.md->halo.K_interior;
    return (interior < 0 ? p_.K_owned() : interior) / epb * epb;
  }

  // One stage with the exchange behind the interior elements: the device computes [0, split) while
  // the traces travel (the stage kernel reads q's ghosts only for the elements after split, and
  // writes q_next), then the rest once the ghosts are in.
  void overlapped_stage(int split, double t, Real a, Real b, Real dt) {
    halo_->exchange(q_.ptr(), [&] { launch_stage(q_, q_next_, t, a, b, dt, 0, split); });
    launch_stage(q_, q_next_, t, a, b, dt, split, p_.K_owned());
    curved_stage(q_, q_next_, t, a, b, dt);
    std::swap(q_, q_next_);
  }

  void compute_rhs(const cuda::DeviceBuffer& q, double t) {
    int K = p_.K_owned();
    cuda::DevicePtr qp = q.ptr(), geo = geo_.ptr(), mat = mat_.ptr(), etoe = etoe_.ptr(), bc = bc_.ptr(),
                    vmapP = vmapP_.ptr(), vert = vert_.ptr(), flux = flux_.ptr(), rhs = rhs_.ptr(),
                    xslot = xslot_.ptr(), xsrc = xsrc_.ptr(), xscale = xscale_.ptr();
    void* vargs[] = {&K, &qp, &geo, &rhs};
    cuda::launch(volume_, "dgmax_volume", element_blocks(), element_block(), 0, vargs);
    if (fuse_level_ >= 1) {
      void* fargs[] = {&K, &qp, &geo, &mat, &etoe, &bc, &vmapP, &vert, &t, &rhs, &xslot, &xsrc, &xscale};
      cuda::launch(surface_lift_, "dgmax_surface_lift", element_blocks(), element_block(), 0, fargs);
      return;
    }
    const long face_nodes = static_cast<long>(K) * 4 * p_.Nfp();
    void* sargs[] = {&K, &qp, &geo, &mat, &etoe, &bc, &vmapP, &vert, &t, &flux};
    cuda::launch(surface_, "dgmax_surface", static_cast<unsigned>((face_nodes + 255) / 256), 256, 0, sargs);
    void* largs[] = {&K, &flux, &mat, &qp, &vert, &t, &rhs, &xslot, &xsrc, &xscale};
    cuda::launch(lift_, "dgmax_lift", element_blocks(), element_block(), 0, largs);
  }

  // q_ → q_next_ (then swapped): neighbours read the old state while blocks write the new one.
  void fused_stage(double t, Real a, Real b, Real dt) {
    launch_stage(q_, q_next_, t, a, b, dt);
    curved_stage(q_, q_next_, t, a, b, dt);
    std::swap(q_, q_next_);
  }

  // The curved group after the straight-sided stage (codegen/emit/curved_kernels.hpp): one block
  // per CURVED_E curved elements; their residual register res_c_ one stage on, q_out and res_
  // overwritten for their elements. q_out = null: the right-hand side alone, into `out`.
  void launch_curved(const cuda::DeviceBuffer& q, cuda::DevicePtr q_out, cuda::DevicePtr out, double t, Real a, Real b,
                     Real dt) {
    if (!curved_stage_ || curved_count_ == 0) return;
    int c0 = 0, c1 = curved_count_;
    cuda::DevicePtr qp = q.ptr(), mat = mat_.ptr(), etoe = etoe_.ptr(), bc = bc_.ptr(), vmapP = vmapP_.ptr(),
                    cinfo = cinfo_.ptr(), cgeo = cgeo_.ptr(), cops = cops_.ptr(), cmat = cmat_.ptr(), cx = cx_.ptr(),
                    res_c = res_c_.ptr();
    void* args[] = {&c0,   &c1,   &qp, &mat, &etoe,  &bc,  &vmapP, &cinfo, &cgeo, &cops,
                    &cmat, &cx,   &t,  &res_c, &out, &q_out, &a,    &b,     &dt};
    const codegen::CurvedBlock shape = codegen::curved_block(spec_);
    const unsigned blocks = static_cast<unsigned>((curved_count_ + shape.elements - 1) / shape.elements);
    cuda::launch(curved_stage_, "dgmax_curved_stage", blocks, static_cast<unsigned>(shape.threads),
                 static_cast<unsigned>(shape.shared_bytes), args);
  }
  void curved_stage(const cuda::DeviceBuffer& q, const cuda::DeviceBuffer& q_out, double t, Real a, Real b, Real dt) {
    launch_curved(q, q_out.ptr(), res_.ptr(), t, a, b, dt);
  }
  void curved_rhs(const cuda::DeviceBuffer& q, const cuda::DeviceBuffer& out, double t) {
    launch_curved(q, 0, out.ptr(), t, Real(0), Real(0), Real(1));
  }
  // res_c_ := the curved elements' rows of a residual set from the host (a restart).
  void gather_curved_residual(const std::vector<double>& res) {
    if (curved_count_ == 0) return;
    const size_t n = 6 * static_cast<size_t>(p_.Np());
    std::vector<Real> rows(static_cast<size_t>(curved_count_) * n);
    for (int c = 0; c < curved_count_; ++c) {
      const size_t k = static_cast<size_t>(curved_cinfo_[static_cast<size_t>(c) * codegen::kCurvedInfo]);
      for (size_t m = 0; m < n; ++m) rows[c * n + m] = static_cast<Real>(res[k * n + m]);
    }
    res_c_.upload(rows);
  }
  // The stage kernel over owned elements [k0, k1) (all of them by default).
  void launch_stage(const cuda::DeviceBuffer& q, const cuda::DeviceBuffer& q_out, double t, Real a, Real b, Real dt,
                    int k0 = 0, int k1 = -1) {
    int K = k1 < 0 ? p_.K_owned() : k1;
    const int epb = plan().elements_per_launch_block();  // E2..E4: several groups per block
    unsigned blocks = static_cast<unsigned>((K - k0 + epb - 1) / epb);
    if (blocks == 0) return;
    if (resident_stage_blocks_ > 0) blocks = std::min(blocks, resident_stage_blocks_);  // persistent (E)
    cuda::DevicePtr qp = q.ptr(), geo = geo_.ptr(), mat = mat_.ptr(), etoe = etoe_.ptr(), bc = bc_.ptr(),
                    vmapP = vmapP_.ptr(), vert = vert_.ptr(), res = res_.ptr(), qn = q_out.ptr(), xslot = xslot_.ptr(),
                    xsrc = xsrc_.ptr(), xscale = xscale_.ptr(), psi = psi_.ptr(), psi_res = psi_res_.ptr(),
                    pcoef = pml_coef_.ptr();
    int pml_slots = p_.pml ? static_cast<int>(p_.pml->elements.size()) : 0;
    void* args[] = {&K, &qp,   &geo,  &mat,   &etoe, &bc,      &vmapP, &vert,     &t,   &res, &qn,
                    &a, &b,    &dt,   &xslot, &xsrc, &xscale,  &psi,   &psi_res,  &pcoef, &pml_slots, &k0};
    cuda::launch(stage_, "dgmax_stage", blocks, element_block(), stage_dynamic_shared_, args);
  }

  // The layer's auxiliary fields one LSERK stage on (a, b, dt) from the state q, and the source the
  // stage's right-hand side adds (a = 1, b = dt = 0: the source only). Fusion 0 and 1 only: the
  // whole-stage kernel does this itself.
  void pml_stage(const cuda::DeviceBuffer& q, Real a, Real b, Real dt) {
    // (a rank of a partitioned run may own no layer element: no launch of zero blocks)
    if (!pml_ || p_.pml->elements.empty()) return;
    int slots = static_cast<int>(p_.pml->elements.size());
    cuda::DevicePtr elem = pml_elem_.ptr(), qp = q.ptr(), vert = vert_.ptr(), psi = psi_.ptr(), psi_res = psi_res_.ptr(),
                    xsrc = xsrc_.ptr();
    void* args[] = {&slots, &elem, &qp, &vert, &psi, &psi_res, &xsrc, &a, &b, &dt};
    const long threads = static_cast<long>(slots) * p_.Np();
    cuda::launch(pml_, "dgmax_pml", static_cast<unsigned>((threads + 255) / 256), 256, 0, args);
  }

  // The total-field/scattered-field correction at time t from the state q, into xsrc's TF/SF slots.
  void tfsf_stage(const cuda::DeviceBuffer& q, double t) {
    if (!tfsf_ || tfsf_count_ == 0) return;  // a rank may own no box face
    int n = tfsf_count_, first = tfsf_first_;
    cuda::DevicePtr elem = tfsf_elem_.ptr(), sign = tfsf_sign_.ptr(), qp = q.ptr(), geo = geo_.ptr(), mat = mat_.ptr(),
                    etoe = etoe_.ptr(), vmapP = vmapP_.ptr(), vert = vert_.ptr(), xsrc = xsrc_.ptr();
    void* args[] = {&n, &first, &elem, &sign, &qp, &geo, &mat, &etoe, &vmapP, &vert, &t, &xsrc};
    cuda::launch(tfsf_, "dgmax_tfsf", static_cast<unsigned>(n), 128, 0, args);
  }

  void update(Real a, Real b, Real dt) {
    long n = static_cast<long>(p_.K_owned()) * 6 * p_.Np();
    cuda::DevicePtr rhs = rhs_.ptr(), res = res_.ptr(), q = q_.ptr();
    void* args[] = {&n, &a, &b, &dt, &rhs, &res, &q};
    const unsigned blocks = static_cast<unsigned>(std::min<long>((n + 255) / 256, 32L * ctx_.info().sm_count));
    cuda::launch(update_, "dgmax_update", blocks, 256, 0, args);
  }

  const Problem& p_;
  cuda::Context& ctx_;
  codegen::KernelSpec spec_;  // with the plan in spec_.plan.cuda
  std::unique_ptr<cuda::Module> module_;
  cuda::Function volume_ = nullptr, surface_ = nullptr, lift_ = nullptr, update_ = nullptr, surface_lift_ = nullptr;
  int fuse_level_ = 2;
  unsigned stage_dynamic_shared_ = 0;  // bytes (mma plans)
  unsigned resident_stage_blocks_ = 0;  // E plans: blocks of dgmax_stage resident on the GPU at once
  cuda::Function stage_ = nullptr, initial_ = nullptr, norms_ = nullptr, pml_ = nullptr, tfsf_ = nullptr;
  int tfsf_count_ = 0, tfsf_first_ = 0;
  // the curved group (with curved elements only): cinfo_ [Kc][9], cgeo_ [Kc][stride], cops_,
  // cmat_ [Kc][4][Np][Np], cx_ [Kc][Np][3], res_c_ [Kc][6][Np] their residual register,
  // curved_partial_ [Kc][6]
  cuda::Function curved_stage_ = nullptr, curved_initial_ = nullptr, curved_norms_ = nullptr;
  int curved_count_ = 0;
  std::vector<int> curved_cinfo_;
  cuda::DeviceBuffer cinfo_, cgeo_, cops_, cmat_, cx_, res_c_, curved_partial_;
  unsigned norm_blocks_ = 1;
  size_t n_ = 0;
  cuda::DeviceBuffer geo_, mat_, etoe_, bc_, vmapP_, vert_, q_, q_next_, res_, rhs_, flux_, partial_;
  // the layer: xslot_ [K], pml_elem_ [slots], pml_coef_ [slots][kPmlCoef], xscale_ [slots][6][Np]
  // (kappa != 1), psi_ and psi_res_ [slots][18][Np], xsrc_ [slots][6][Np]
  cuda::DeviceBuffer xslot_, pml_elem_, pml_coef_, xscale_, psi_, psi_res_, xsrc_, tfsf_elem_, tfsf_sign_;
  size_t psi_elems_ = 0;
  std::vector<Real> host_stage_;  // host copy of a single-precision state or residual (snapshots, checkpoints)
  std::deque<EventPair> pending_;
  std::vector<EventPair> spare_;
  CudaMonitors monitors_{ctx_, std::is_same_v<Real, float>, p_.Np()};  // probes and DFT monitors
  std::unique_ptr<CudaHalo> halo_;  // several ranks: the face-trace exchange
  bool overlap_enabled_ = env("DGMAX_HALO_OVERLAP") != "0";  // (=0: for measuring what the overlap gains)
};

}  // namespace

codegen::CudaBlockLimits cuda_block_limits() {
  const cuda::DeviceInfo& dev = cuda::Context::get().info();
  codegen::CudaBlockLimits limits;
  if (dev.max_threads_per_block > 0) limits.max_threads = std::min(limits.max_threads, dev.max_threads_per_block);
  if (dev.max_shared_per_block_optin > 0) limits.max_dynamic_shared = static_cast<int>(dev.max_shared_per_block_optin);
  limits.arch = dev.cc_major * 10 + dev.cc_minor;
  return limits;
}

std::unique_ptr<Backend> make_cuda_backend(const Problem& p, bool single) {
  std::string why;
  if (!cuda::driver_available(&why))
    throw UserError("the cuda backend needs an NVIDIA GPU: " + why, {}, "use backend: cpu (or auto)");
  return make_cuda_plan_backend(p, single,
                                codegen::default_cuda_plan(p.N, single, cuda_block_limits().arch, bool(p.current)));
}

std::unique_ptr<CudaPlanBackend> make_cuda_plan_backend(const Problem& p, bool single, const codegen::CudaPlan& plan) {
  std::string why;
  if (!cuda::driver_available(&why))
    throw UserError("the cuda backend needs an NVIDIA GPU: " + why, {}, "use backend: cpu (or auto)");
  if (single) return std::make_unique<CudaBackend<float>>(p, plan);
  return std::make_unique<CudaBackend<double>>(p, plan);
}

}  // namespace dgmax
